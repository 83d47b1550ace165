
func.func @eps_negative(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps -1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  return
}

