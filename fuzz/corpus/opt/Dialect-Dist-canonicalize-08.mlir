
// Sliced over tp, gathered over dp: not the same ranks.
dist.mesh @mesh ["dp" = 4, "tp" = 4]
// CHECK-LABEL: func.func @gather_of_slice_other_axis
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["dp"] dim 0
// CHECK: return %[[G]]
func.func @gather_of_slice_other_axis(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = dist.all_gather %0 on @mesh["dp"] dim 0 : tensor<2x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

