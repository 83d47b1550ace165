
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<6x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{dimension 0 (6) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<6x2x8xf32>, tensor<6x8xf32>) -> tensor<1x2x6xf32>
  return
}

