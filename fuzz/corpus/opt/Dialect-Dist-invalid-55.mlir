
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = P, tp = P> vs #dist.layout<@mesh>}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

