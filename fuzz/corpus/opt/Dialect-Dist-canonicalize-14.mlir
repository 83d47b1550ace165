
// S(0) -> R -> S(1) is one all_to_all (the partitioner's S(a) -> S(b) path
// through R, which its rules never take).
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather_other_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>)
// CHECK-NEXT: %[[A:.*]] = dist.all_to_all %[[X]] on @mesh["tp"] split 2 concat 0 : tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
// CHECK-NEXT: return %[[A]]
func.func @slice_of_gather_other_dim(%x: tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>) -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>> {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x2x8xf32, #dist.layout<@mesh, dp = S(1)>>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 2 : tensor<8x2x8xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
  return %1 : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
}

