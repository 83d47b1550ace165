
dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_local_slice
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_local_slice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

