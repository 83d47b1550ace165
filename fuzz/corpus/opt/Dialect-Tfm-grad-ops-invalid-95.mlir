
// The gradient must carry the parameter's layout.
tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
func.func @layout_dropped(%g: tensor<16x24xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<16x24xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<16x24xf32>, tensor<f32>
  return
}

