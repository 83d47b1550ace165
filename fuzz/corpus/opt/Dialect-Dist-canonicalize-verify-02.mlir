
// Gather-then-slice and slice-then-gather round trips disappear.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @round_trips
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[Y:.*]] = tfm.add %[[X]], %[[X]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[Y]] on @mesh["tp"] dim 0
// CHECK-NEXT: return %[[G]]
func.func @round_trips(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %s = dist.local_slice %g on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.add %s, %s : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %h = dist.all_gather %y on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %t = dist.local_slice %h on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %u = dist.all_gather %t on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  return %u : tensor<4x1x8xf32>
}

