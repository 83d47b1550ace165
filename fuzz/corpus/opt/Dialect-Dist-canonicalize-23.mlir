
//===----------------------------------------------------------------------===//
// all_reduce then local_slice: one reduce_scatter
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 4]
// CHECK-LABEL: func.func @all_reduce_then_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>)
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter %[[X]] on @mesh["tp"] dim 0 : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_then_slice(%x: tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>) -> tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> {
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  return %1 : tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
}

