
// Reduced over dp, sliced over tp.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @all_reduce_then_slice_other_axis
// CHECK: %[[R:.*]] = dist.all_reduce %{{.*}} on @mesh["dp"] sum
// CHECK: %[[S:.*]] = dist.local_slice %[[R]] on @mesh["tp"] dim 0
// CHECK: return %[[S]]
func.func @all_reduce_then_slice_other_axis(%x: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>> {
  %0 = dist.all_reduce %x on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1 : tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
}

