
// R -> S(0) -> S(1) is R -> S(1): a local slice, nothing sent.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @all_to_all_of_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[S:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 1 : tensor<8x8xf32> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: return %[[S]]
func.func @all_to_all_of_slice(%x: tensor<8x8xf32>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.all_to_all %0 on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  return %1 : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
}

