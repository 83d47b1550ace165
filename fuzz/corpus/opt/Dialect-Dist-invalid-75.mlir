
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = S(1)>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = S(1)> vs #dist.layout<@mesh, tp = S(0)>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.send / dist.recv
//===----------------------------------------------------------------------===//

