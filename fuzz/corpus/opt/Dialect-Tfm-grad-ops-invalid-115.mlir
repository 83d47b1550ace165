
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @betas_swapped(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %lr = tfm.hyperparameter lr default 0.1
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %wd = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{'beta1' must be read by tfm.hyperparameter beta1, got hyperparameter beta2}}
  tfm.adamw_update @w, %g scale %s lr %lr betas %beta2, %beta1 eps %eps weight_decay %wd : tensor<8x8xf32>, tensor<f32>
  return
}

