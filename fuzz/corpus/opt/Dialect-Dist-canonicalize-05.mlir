
// With layouts a collective changes the type even on an axis of size 1
// (S(0) -> R, P -> R): folding it would change its users' types, so it
// stays.
dist.mesh @mesh ["tp" = 1]
// CHECK-LABEL: func.func @unit_axis_with_layouts
// CHECK: dist.all_gather
// CHECK: dist.all_reduce
// CHECK: dist.local_slice
func.func @unit_axis_with_layouts(%x: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                                  %p: tensor<4x8xf32, #dist.layout<@mesh, tp = P>>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>) {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x8xf32>
  %1 = dist.all_reduce %p on @mesh["tp"] sum : tensor<4x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x8xf32>
  %2 = dist.local_slice %1 on @mesh["tp"] dim 1 : tensor<4x8xf32> -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>
}

