
func.func @dy_shape(%dy: tensor<8x2x32xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dy and the input must have the same shape}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  return
}

