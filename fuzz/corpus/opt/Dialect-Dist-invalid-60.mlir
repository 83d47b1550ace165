
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<8x6xf32>) {
  // expected-error @+1 {{dimension 1 (6) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x6xf32> -> tensor<32x1xf32>
  return
}

