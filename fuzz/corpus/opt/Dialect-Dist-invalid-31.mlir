
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for a rank-2 tensor}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

