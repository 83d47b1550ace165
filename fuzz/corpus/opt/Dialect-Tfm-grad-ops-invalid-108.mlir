
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @eps_zero(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{lr and eps must be > 0 and weight_decay >= 0}}
  tfm.adamw_update @w, %g scale %s lr 1.0e-03 betas 0.9, 0.999 eps 0.0 weight_decay 0.0 : tensor<8x8xf32>, tensor<f32>
  return
}

