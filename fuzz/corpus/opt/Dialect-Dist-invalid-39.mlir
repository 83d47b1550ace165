
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_replicated(%x: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, dp = S(0)>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh, dp = S(0)>>
  return
}

