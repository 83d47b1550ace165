
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_wrong_split(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<32x2xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

