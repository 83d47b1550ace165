
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @shape_changes(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 8] for axis 'tp' of size 4, got 'tensor<2x8xf32>'}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32> -> tensor<2x8xf32>
  return
}

