
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @weight_decay_negative(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{lr must be > 0 and weight_decay >= 0}}
  tfm.sgd_update @w, %g scale %s lr 0.1 weight_decay -0.01 : tensor<8x8xf32>, tensor<f32>
  return
}

