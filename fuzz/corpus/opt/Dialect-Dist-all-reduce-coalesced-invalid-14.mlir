
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @layout_axis_missing(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, %y: tensor<4xf32, #dist.layout<@mesh, cp = S(0), dp = P>>) {
  // expected-error @+1 {{layout of operand #1 names axis 'cp' that mesh @mesh does not have}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, tensor<4xf32, #dist.layout<@mesh, cp = S(0), dp = P>>) -> (tensor<8x2xf32>, tensor<4xf32, #dist.layout<@mesh, cp = S(0)>>)
  return
}

