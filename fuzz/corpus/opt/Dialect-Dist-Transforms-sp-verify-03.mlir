
// A column-parallel GEMM fed a sequence shard (the all_gather is missing).
dist.mesh @mesh ["tp" = 2]
tfm.param @fc.weight : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @missing_gather(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(2)>> {
  %w1 = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  // expected-error @+1 {{operand #0 is S(0) on mesh axis 'tp': a column-parallel GEMM needs its whole input; all-gather it first}}
  %h = tfm.linear %x, %w1 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  return %h : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
}

