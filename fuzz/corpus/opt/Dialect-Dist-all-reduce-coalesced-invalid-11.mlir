
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>) {
  // expected-error @+1 {{layouts on axes other than 'dp' must not change: #dist.layout<@mesh, dp = P, tp = S(0)> vs #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>) -> tensor<16x32xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

