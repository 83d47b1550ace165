
// A sliced value exchanged to another split is sliced there directly; an
// exchange followed by a gather is one gather.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @exchanges
// CHECK-SAME: (%[[X:.*]]: tensor<4x1x8xf32>, %[[Z:.*]]: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[S:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 2 : tensor<4x1x8xf32> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[E:.*]] = tfm.silu %[[S]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[E]] on @mesh["tp"] dim 2
// CHECK-NEXT: %[[H:.*]] = dist.all_gather %[[Z]] on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
// CHECK-NEXT: return %[[G]], %[[H]]
func.func @exchanges(%x: tensor<4x1x8xf32>, %z: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<4x1x8xf32>, tensor<4x1x8xf32>) {
  %s = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %a = dist.all_to_all %s on @mesh["tp"] split 2 concat 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %e = tfm.silu %a : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %o = dist.all_gather %e on @mesh["tp"] dim 2 : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32>
  %b = dist.all_to_all %z on @mesh["tp"] split 2 concat 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %h = dist.all_gather %b on @mesh["tp"] dim 2 : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32>
  return %o, %h : tensor<4x1x8xf32>, tensor<4x1x8xf32>
}
