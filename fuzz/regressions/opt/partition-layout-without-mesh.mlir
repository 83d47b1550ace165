tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @f() -> tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>> {
  %s = tfm.get_param @w : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>
  return %s : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>
}
