
// Two updates of one parameter (sp-optimizer run twice, or a hand edit).
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%gw: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.optimizer = "adamw"} {
  %w = tfm.get_param @w : tensor<8xf32>
  // expected-note @+1 {{the first update of @w}}
  tfm.adamw_update @w, %gw scale %s lr 1.0e-3 betas 0.9, 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8xf32>, tensor<f32>
  // expected-error-re @+1 {{'tfm.adamw_update' op updates parameter @w a second time: the 'tfm.adamw_update' at {{.*}}sp-verify-updates.mlir{{.*}}:9:3 already updates it, and a parameter is updated exactly once per step}}
  tfm.adamw_update @w, %gw scale %s lr 1.0e-3 betas 0.9, 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8xf32>, tensor<f32>
  return %gw : tensor<8xf32>
}

