
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func private @not_a_param()
func.func @updates_a_function(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{@not_a_param does not name a tfm.param}}
  tfm.sgd_update @not_a_param, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

