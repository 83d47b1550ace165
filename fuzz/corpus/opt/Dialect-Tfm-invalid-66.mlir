
func.func @bias_size_in_out(%x: tensor<8x16xf32>, %w: tensor<16x48xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias must have shape [48], got [16]}}
  %0 = tfm.linear %x, %w, %b weight_layout in_out : (tensor<8x16xf32>, tensor<16x48xf32>, tensor<16xf32>) -> tensor<8x48xf32>
  return
}

