
// The last (contracted) dimension cannot be gathered.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_is_last(%x: tensor<2x2x8xf32>, %w: tensor<6x32xf32>) {
  // expected-error @+1 {{dim 2 is out of range}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 2 chunks 1 : (tensor<2x2x8xf32>, tensor<6x32xf32>) -> tensor<2x2x6xf32>
  return
}

