
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<6x8xf32>) {
  // expected-error @+1 {{dimension 0 (6) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<6x8xf32> -> tensor<1x8xf32>
  return
}

