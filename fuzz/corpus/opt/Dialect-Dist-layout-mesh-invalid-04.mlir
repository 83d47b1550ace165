
dist.mesh @mesh ["tp" = 4]
func.func @collective_result_other_mesh(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{'dist.reduce_scatter' op layout of result #0 names mesh @other but is used on mesh @mesh}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x8xf32, #dist.layout<@other, tp = S(0)>>
  return
}

