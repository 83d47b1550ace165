
// reduce_scatter only sums: max, min and mean stay.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @all_reduce_then_slice_not_sum
// CHECK-NOT: dist.reduce_scatter
// CHECK: dist.all_reduce %{{.*}} max
// CHECK: dist.local_slice
// CHECK: dist.all_reduce %{{.*}} min
// CHECK: dist.local_slice
// CHECK: dist.all_reduce %{{.*}} mean
// CHECK: dist.local_slice
// CHECK-NOT: dist.reduce_scatter
func.func @all_reduce_then_slice_not_sum(%x: tensor<8xf32, #dist.layout<@mesh, tp = P>>)
    -> (tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %0 = dist.all_reduce %x on @mesh["tp"] max : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  %2 = dist.all_reduce %x on @mesh["tp"] min : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %3 = dist.local_slice %2 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  %4 = dist.all_reduce %x on @mesh["tp"] mean : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %5 = dist.local_slice %4 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1, %3, %5 : tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
}

