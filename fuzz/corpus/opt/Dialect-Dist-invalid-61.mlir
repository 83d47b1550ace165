
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_shape(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [32, 2] for axis 'tp' of size 4, got 'tensor<2x32xf32>'}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32> -> tensor<2x32xf32>
  return
}

