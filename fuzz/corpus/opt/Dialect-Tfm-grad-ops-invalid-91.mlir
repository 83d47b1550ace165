
// The function does not read the parameter at all.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @not_read(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

