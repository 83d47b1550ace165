
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_replicated(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{result must be R on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
  return
}

