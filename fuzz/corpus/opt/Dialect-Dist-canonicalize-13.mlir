
// Gathered over dp, sliced over tp: not the same ranks.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather_other_axis
// CHECK: %[[G:.*]] = dist.all_gather %{{.*}} on @mesh["dp"] dim 0
// CHECK: %[[S:.*]] = dist.local_slice %[[G]] on @mesh["tp"] dim 0
// CHECK: return %[[S]]
func.func @slice_of_gather_other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_gather %x on @mesh["dp"] dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

