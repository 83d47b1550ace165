
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{dim 5 is out of range}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 5 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

