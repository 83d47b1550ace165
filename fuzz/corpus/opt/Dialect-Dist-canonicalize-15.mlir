
// The whole gathered tensor is needed anyway: slicing it costs nothing,
// an all_to_all would be extra traffic.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather_other_dim_two_users
// CHECK: %[[G:.*]] = dist.all_gather %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[S:.*]] = dist.local_slice %[[G]] on @mesh["tp"] dim 1
// CHECK-NOT: dist.all_to_all
// CHECK: return %[[S]], %[[G]]
func.func @slice_of_gather_other_dim_two_users(%x: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x8xf32>) {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 1 : tensor<8x8xf32> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  return %1, %0 : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x8xf32>
}

