
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @results_swapped(%x: tensor<8x2xf32>, %y: tensor<2x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 2] for axis 'dp' of size 2, got 'tensor<2x8xf32>'}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8x2xf32>)
  return
}

