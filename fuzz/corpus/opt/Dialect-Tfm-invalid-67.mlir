
func.func @bias_rank(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>, %b: tensor<1x48xf32>) {
  // expected-error @+1 {{bias must have shape [48], got [1, 48]}}
  %0 = tfm.linear %x, %w, %b : (tensor<8x16xf32>, tensor<48x16xf32>, tensor<1x48xf32>) -> tensor<8x48xf32>
  return
}

