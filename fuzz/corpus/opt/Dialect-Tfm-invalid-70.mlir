
func.func @result_leading(%x: tensor<8x2x16xf32>, %w: tensor<16x48xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 48], got [16, 48]}}
  %0 = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x16xf32>, tensor<16x48xf32>) -> tensor<16x48xf32>
  return
}

