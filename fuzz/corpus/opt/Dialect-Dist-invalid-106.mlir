
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_rank(%x: tensor<8x2x8xf32>, %w: tensor<1x6x8xf32>) {
  // expected-error @+1 {{weight must have rank 2, got 'tensor<1x6x8xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<1x6x8xf32>) -> tensor<2x2x6xf32>
  return
}

