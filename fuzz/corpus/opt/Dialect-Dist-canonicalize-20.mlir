
// Sliced over tp, exchanged over cp: not the same ranks.
dist.mesh @mesh ["cp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @all_to_all_of_slice_other_axis
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[A:.*]] = dist.all_to_all %[[S]] on @mesh["cp"] split 1 concat 0
// CHECK: return %[[A]]
func.func @all_to_all_of_slice_other_axis(%x: tensor<8x8xf32>) -> tensor<8x4xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_to_all %0 on @mesh["cp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

