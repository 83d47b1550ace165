
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_scattered(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result shape must be [2, 2, 6] for axis 'tp' of size 4, got 'tensor<8x2x6xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

