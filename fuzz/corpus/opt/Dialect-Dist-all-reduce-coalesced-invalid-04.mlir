
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @shape_changes(%x: tensor<8x2xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{result shape must be [4] for axis 'tp' of size 4, got 'tensor<1xf32>'}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["tp"] sum : (tensor<8x2xf32>, tensor<4xf32>) -> (tensor<8x2xf32>, tensor<1xf32>)
  return
}

