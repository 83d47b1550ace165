
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{dim -1 is out of range}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim -1 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

