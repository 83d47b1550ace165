
func.func @result_out(%x: tensor<8x2x16xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 48], got [8, 2, 16]}}
  %0 = tfm.linear %x, %w : (tensor<8x2x16xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  return
}

