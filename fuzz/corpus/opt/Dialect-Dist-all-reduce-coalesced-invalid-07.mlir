
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_replicated(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, %y: tensor<4xf32, #dist.layout<@mesh, dp = P>>) {
  // expected-error @+1 {{result must be R on axis 'dp', its layout is #dist.layout<@mesh, dp = P>}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, tensor<4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x2xf32>, tensor<4xf32, #dist.layout<@mesh, dp = P>>)
  return
}

