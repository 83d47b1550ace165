
func.func @eps_negative(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got -1.000000e-05}}
  %0 = tfm.layer_norm %x, %w, %b eps -1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

