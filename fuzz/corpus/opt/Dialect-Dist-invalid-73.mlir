
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_replicated(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{operand must be R on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

