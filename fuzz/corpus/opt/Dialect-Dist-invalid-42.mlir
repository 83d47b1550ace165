
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{dim 3 is out of range for a rank-2 tensor}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 3 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

