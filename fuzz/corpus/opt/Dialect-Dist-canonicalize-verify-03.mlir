
// Sequence shards to feature shards through R: one all_to_all.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @reshard
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[A:.*]] = dist.all_to_all %[[X]] on @mesh["tp"] split 2 concat 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[E:.*]] = tfm.silu %[[A]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[E]] on @mesh["tp"] dim 2
// CHECK-NEXT: return %[[G]]
func.func @reshard(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %s = dist.local_slice %g on @mesh["tp"] dim 2 : tensor<4x1x8xf32> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %e = tfm.silu %s : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %o = dist.all_gather %e on @mesh["tp"] dim 2 : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32>
  return %o : tensor<4x1x8xf32>
}

