
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @input_not_split(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{input must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

