
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = S(1), tp = S(0)> vs #dist.layout<@mesh>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

//===----------------------------------------------------------------------===//
// dist.reduce_scatter
//===----------------------------------------------------------------------===//

