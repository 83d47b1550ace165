
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<8x10xf32>) {
  // expected-error @+1 {{dimension 1 (10) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 1 : tensor<8x10xf32> -> tensor<8x2xf32>
  return
}

