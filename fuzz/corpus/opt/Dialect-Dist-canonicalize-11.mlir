
// The slice's other user keeps it; the gather still folds.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_slice_two_users
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK: %[[S:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 0
// CHECK-NOT: dist.all_gather
// CHECK: return %[[X]], %[[S]]
func.func @gather_of_slice_two_users(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x4xf32> -> tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x4xf32>
  return %1, %0 : tensor<4x4xf32>, tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>>
}

