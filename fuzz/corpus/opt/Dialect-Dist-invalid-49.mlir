
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = P, tp = P> vs #dist.layout<@mesh, dp = S(1), tp = S(0)>}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_reduce
//===----------------------------------------------------------------------===//

