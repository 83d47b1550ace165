
// Sliced along 0, gathered along 1: a different tensor.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_slice_other_dim
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["tp"] dim 1
// CHECK: return %[[G]]
func.func @gather_of_slice_other_dim(%x: tensor<4x4xf32>) -> tensor<2x8xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x4xf32> -> tensor<2x4xf32>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 1 : tensor<2x4xf32> -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

