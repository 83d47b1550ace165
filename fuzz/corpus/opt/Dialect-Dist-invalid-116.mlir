
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_zero(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (0) must be >= 1 and divide the result's scattered dimension (2)}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 0 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

