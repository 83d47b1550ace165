
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_shape(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [2, 8] for axis 'tp' of size 4, got 'tensor<4x8xf32>'}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return
}

