
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @split_equals_concat(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{split and concat dimensions must differ, both are 1}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

