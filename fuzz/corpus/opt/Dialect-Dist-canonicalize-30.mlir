
// Scattered over tp, gathered over dp (shapes only): not the same ranks.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather_other_axis
// CHECK: %[[S:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["dp"] dim 0
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[G]]
func.func @reduce_scatter_then_gather_other_axis(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = dist.all_gather %0 on @mesh["dp"] dim 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
