
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_factor(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 8] for axis 'tp' of size 4, got 'tensor<4x8xf32>'}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  return
}

