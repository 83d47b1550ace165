
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: return %[[X]]
func.func @slice_of_gather(%x: tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8x2x8xf32> -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

