
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_replicated(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{result must be R on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.all_reduce %x on @mesh["tp"] min : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
  return
}

