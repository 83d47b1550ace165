
func.func @eps_negative(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got -1.000000e+00}}
  %0 = tfm.rms_norm %x, %w eps -1.0 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

