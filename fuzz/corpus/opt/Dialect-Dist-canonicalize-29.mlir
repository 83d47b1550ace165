
// Scattered along 0, gathered along 1 (shapes only): a different tensor.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather_other_dim
// CHECK: %[[S:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["tp"] dim 1
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[G]]
func.func @reduce_scatter_then_gather_other_dim(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 1 : tensor<4x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

