
func.func @bias_size_out_in(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias must have shape [48], got [16]}}
  %0 = tfm.linear %x, %w, %b : (tensor<8x16xf32>, tensor<48x16xf32>, tensor<16xf32>) -> tensor<8x48xf32>
  return
}

