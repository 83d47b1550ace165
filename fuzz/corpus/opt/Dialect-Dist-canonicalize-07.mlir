
//===----------------------------------------------------------------------===//
// all_gather(local_slice(x)) and local_slice(all_gather(x))
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 4]
// CHECK-LABEL: func.func @gather_of_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>)
// CHECK-NEXT: return %[[X]]
func.func @gather_of_slice(%x: tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %1 : tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>
}

