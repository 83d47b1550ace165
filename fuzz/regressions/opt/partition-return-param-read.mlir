
// Reading iä in another function does not count.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @reads(%s: tensor<f32>) -> tensor<8x8xf32> {
  %w = tfm.get_param @w : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}
func.func @read_elsewhere(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{update s@w with a gradient of type 'tensor<8x8xf : tensor<8x8xf32>, tensor<f32>
  return
}

