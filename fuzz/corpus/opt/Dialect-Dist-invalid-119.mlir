
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_split_other_dim(%x: tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<6x2xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<6x2xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<2x2x6xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}
