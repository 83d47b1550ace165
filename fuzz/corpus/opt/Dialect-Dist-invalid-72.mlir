
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_result(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32>
  return
}

