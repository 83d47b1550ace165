
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @concat_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{concat -1 is out of range for a rank-2 tensor}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat -1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

