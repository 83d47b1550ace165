
func.func @weight_rank1(%x: tensor<8x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{weight must have rank 2, got [16]}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return
}

