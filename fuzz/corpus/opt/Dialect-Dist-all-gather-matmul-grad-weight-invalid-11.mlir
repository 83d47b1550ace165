
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dy_split_like_the_input(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dy: tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{dy 0 must not be S(0) on axis 'tp': it has the gathered rows}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<6x8xf32>
  return
}
