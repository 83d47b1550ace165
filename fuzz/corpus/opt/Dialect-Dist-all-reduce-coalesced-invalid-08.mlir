
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_split(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>) {
  // expected-error @+1 {{result must be R on axis 'dp', its layout is #dist.layout<@mesh, dp = S(0)>}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>) -> tensor<8x2xf32, #dist.layout<@mesh, dp = S(0)>>
  return
}

