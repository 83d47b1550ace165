
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_partial(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{operand must be P on axis 'tp', its layout is #dist.layout<@mesh, tp = S(0)>}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

