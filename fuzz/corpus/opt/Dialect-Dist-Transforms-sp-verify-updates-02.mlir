
// Two updates of one parameter (sp-optimizer run twice, or a hand edit).
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%gw: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<adamw>} {
  %lr = tfm.hyperparameter lr default 1.0e-3
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-8
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  // expected-note @+1 {{the first update of @w}}
  tfm.adamw_update @w, %gw scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  // expected-error-re @+1 {{'tfm.adamw_update' op updates parameter @w a second time: the 'tfm.adamw_update' at {{.*}}sp-verify-updates.mlir{{.*}}:14:3 already updates it, and a parameter is updated exactly once per step}}
  tfm.adamw_update @w, %gw scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw : tensor<8xf32>
}

