
func.func @eps_zero(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 0.0 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

