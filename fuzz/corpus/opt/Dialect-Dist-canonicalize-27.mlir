
//===----------------------------------------------------------------------===//
// reduce_scatter then all_gather: one all_reduce
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather
// CHECK-SAME: (%[[X:.*]]: tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>)
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce %[[X]] on @mesh["tp"] sum : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
// CHECK-NEXT: return %[[R]]
func.func @reduce_scatter_then_gather(%x: tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
}

