
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @split_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{split 2 is out of range for a rank-2 tensor}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 2 concat 0 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

