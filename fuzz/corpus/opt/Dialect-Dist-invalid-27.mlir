
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_layout_axis(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<6x8xf32, #dist.layout<@mesh, cp = S(0)>>) {
  // expected-error @+1 {{layout of operand #1 names axis 'cp' that mesh @mesh does not have}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<6x8xf32, #dist.layout<@mesh, cp = S(0)>>) -> tensor<8x6xf32, #dist.layout<@mesh>>
  return
}

