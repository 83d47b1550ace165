
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_result(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{result must be S(1) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<32x2xf32>
  return
}

