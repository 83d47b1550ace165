
// Round trip on two different axes.
dist.mesh @mesh ["cp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @all_to_all_other_axis
// CHECK: %[[A:.*]] = dist.all_to_all %{{.*}} on @mesh["cp"] split 1 concat 0
// CHECK: %[[B:.*]] = dist.all_to_all %[[A]] on @mesh["tp"] split 0 concat 1
// CHECK: return %[[B]]
func.func @all_to_all_other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_to_all %x on @mesh["cp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = dist.all_to_all %0 on @mesh["tp"] split 0 concat 1 : tensor<8x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

