
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_partial(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{operand must be P on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

