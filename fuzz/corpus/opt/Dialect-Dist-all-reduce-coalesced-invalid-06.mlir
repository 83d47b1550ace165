
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x2xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'bf16'}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<4xf32>) -> (tensor<8x2xf32>, tensor<4xbf16>)
  return
}

