
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_layout_axis(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{layout of result #0 names axis 'sp' that mesh @mesh does not have}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32, #dist.layout<@mesh, sp = P, tp = S(0)>>
  return
}

