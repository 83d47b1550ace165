
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_is_last(%x: tensor<8x2x8xf32>, %w: tensor<8x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 2 chunks 1 : (tensor<8x2x8xf32>, tensor<8x8xf32>) -> tensor<8x2x2xf32>
  return
}

