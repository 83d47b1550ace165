
// Gathered along the exchange's concat dimension (shapes only, no layouts):
// not the split the all_to_all made.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_all_to_all_other_dim
// CHECK: %[[A:.*]] = dist.all_to_all %{{.*}} on @mesh["tp"] split 1 concat 0
// CHECK: %[[G:.*]] = dist.all_gather %[[A]] on @mesh["tp"] dim 0
// CHECK: return %[[G]]
func.func @gather_of_all_to_all_other_dim(%x: tensor<4x8xf32>) -> tensor<16x4xf32> {
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<16x4xf32>
  return %1 : tensor<16x4xf32>
}

