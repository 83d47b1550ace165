
func.func @eps_zero(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got 0.000000e+00}}
  %0 = tfm.layer_norm %x, %w eps 0.0 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

