
// Every reduction kind of a single contribution is that contribution.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @unit_all_reduce(%x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_reduce %x on @mesh["tp"] mean : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = dist.all_reduce %x on @mesh["tp"] max : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = dist.all_reduce %x on @mesh["tp"] min : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

