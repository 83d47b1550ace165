
func.func @input_rank(%x: tensor<f32>, %w: tensor<4x1xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = tfm.linear %x, %w : (tensor<f32>, tensor<4x1xf32>) -> tensor<4xf32>
  return
}

