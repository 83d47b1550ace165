
// chunks divides the input's dim (8) but not the result's (2).
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_not_dividing(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (4) must be >= 1 and divide the result's scattered dimension (2)}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 4 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

