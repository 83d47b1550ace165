
func.func @dy_shape(%dy: tensor<2x8x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dy and the input must have the same shape}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<2x8x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

