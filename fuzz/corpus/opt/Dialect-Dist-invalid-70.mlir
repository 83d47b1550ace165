
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_shape(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 4] for axis 'dp' of size 2, got 'tensor<8x2xf32>'}}
  %0 = dist.local_slice %x on @mesh["dp"] dim 1 : tensor<8x8xf32> -> tensor<8x2xf32>
  return
}

