
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, tp = S(0)> vs #dist.layout<@mesh, dp = P, tp = S(1)>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<32x2xf32, #dist.layout<@mesh, dp = P, tp = S(1)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.local_slice
//===----------------------------------------------------------------------===//

