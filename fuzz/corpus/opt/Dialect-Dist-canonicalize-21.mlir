
// S(0) -> S(1) -> R is S(0) -> R: one gather.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[X]] on @mesh["tp"] dim 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gather_of_all_to_all(%x: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x8xf32> {
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 1 : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

