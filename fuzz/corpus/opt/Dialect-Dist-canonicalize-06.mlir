
// An axis of size 2 is no identity, even where the types agree.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @all_reduce_size_two
// CHECK: dist.all_reduce %{{.*}} on @mesh["dp"] sum
// CHECK: dist.all_reduce %{{.*}} on @mesh["dp"] max
func.func @all_reduce_size_two(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = dist.all_reduce %x on @mesh["dp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_reduce %x on @mesh["dp"] max : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

