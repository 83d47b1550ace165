
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @missing(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{@missing does not name a tfm.param}}
  tfm.sgd_update @missing, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

