
// The shard has another user (the sequence-parallel norm between the two):
// both collectives stay.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather_two_users
// CHECK: %[[S:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["tp"] dim 0
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[G]], %[[S]]
func.func @reduce_scatter_then_gather_two_users(%x: tensor<8x4xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<8x4xf32>, tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x4xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32>
  return %1, %0 : tensor<8x4xf32>, tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
}

