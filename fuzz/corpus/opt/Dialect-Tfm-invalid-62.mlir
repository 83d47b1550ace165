
func.func @weight_rank3(%x: tensor<8x16xf32>, %w: tensor<2x4x16xf32>) {
  // expected-error @+1 {{weight must have rank 2, got [2, 4, 16]}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<2x4x16xf32>) -> tensor<8x4xf32>
  return
}

