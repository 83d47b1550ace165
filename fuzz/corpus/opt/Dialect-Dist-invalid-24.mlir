
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_layout_axis(%x: tensor<2x8xf32, #dist.layout<@mesh, cp = S(1), tp = S(0)>>) {
  // expected-error @+1 {{layout of operand #0 names axis 'cp' that mesh @mesh does not have}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, cp = S(1), tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh, cp = S(1)>>
  return
}

