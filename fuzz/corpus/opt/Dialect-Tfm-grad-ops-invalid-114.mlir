
// Each operand reads the hyperparameter of its name.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @swapped(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %lr = tfm.hyperparameter lr default 0.1
  %wd = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{'lr' must be read by tfm.hyperparameter lr, got hyperparameter weight_decay}}
  tfm.sgd_update @w, %g scale %s lr %wd weight_decay %lr : tensor<8x8xf32>, tensor<f32>
  return
}

