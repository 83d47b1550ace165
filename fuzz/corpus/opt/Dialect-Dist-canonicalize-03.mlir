
dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_all_to_all(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

