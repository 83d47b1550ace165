
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @missing(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 1.0e-03
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{@missing does not name a tfm.param}}
  tfm.adamw_update @missing, %g scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

