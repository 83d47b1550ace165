
// The whole sum has another user: the all_reduce stays, and so does the
// (free) slice.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @all_reduce_then_slice_two_users
// CHECK: %[[R:.*]] = dist.all_reduce %{{.*}} on @mesh["tp"] sum
// CHECK: %[[S:.*]] = dist.local_slice %[[R]] on @mesh["tp"] dim 0
// CHECK-NOT: dist.reduce_scatter
// CHECK: return %[[S]], %[[R]]
func.func @all_reduce_then_slice_two_users(%x: tensor<8xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) {
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1, %0 : tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>
}

