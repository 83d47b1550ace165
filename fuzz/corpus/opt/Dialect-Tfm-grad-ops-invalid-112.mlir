
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @beta2_one(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{betas must be in [0, 1), got 9.000000e-01, 1.000000e+00}}
  tfm.adamw_update @w, %g scale %s lr 1.0e-03 betas 0.9, 1.0 eps 1.0e-08 weight_decay 0.0 : tensor<8x8xf32>, tensor<f32>
  return
}

