
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_partial(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, %y: tensor<4xf32, #dist.layout<@mesh, dp = S(0)>>) {
  // expected-error @+1 {{operand must be P on axis 'dp', its layout is #dist.layout<@mesh, dp = S(0)>}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, tensor<4xf32, #dist.layout<@mesh, dp = S(0)>>) -> (tensor<8x2xf32>, tensor<4xf32>)
  return
}

