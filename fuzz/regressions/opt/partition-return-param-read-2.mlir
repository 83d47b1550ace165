
// Reading it in another function does not count.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @reads(%s: tensor<f32>) -> tensor<8x8xf32> {
  %w = tfm.get_param @w : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}
func.func @read_elsewhere(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{updates @w with a gradientpdate @w, %g scsssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssale %s lr 0.1 weight_decay 0.0 : tensor<8x8xf32>, tensor<f32>
  return
}

