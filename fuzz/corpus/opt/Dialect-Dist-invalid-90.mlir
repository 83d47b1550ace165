
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_rank(%x: tensor<2x2x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{weight must have rank 2, got 'tensor<8xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8xf32>) -> tensor<8x2x8xf32>
  return
}

