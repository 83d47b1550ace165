
// One gather read by two GEMMs (Llama's q and k of one norm output): the
// gathered input is needed whole twice, so nothing is fused.
// CHECK-LABEL: func.func @gather_two_gemms
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[WQ:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[WK:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[G:[0-9]+]] = dist.all_gather %[[X]] on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[Q:[0-9]+]] = tfm.linear %[[G]], %[[WQ]] :
// CHECK-NEXT: %[[K:[0-9]+]] = tfm.linear %[[G]], %[[WK]] :
// CHECK-NEXT: return %[[Q]], %[[K]]
// CHECK-NOT: _matmul
// CHUNKS4-LABEL: func.func @gather_two_gemms
// CHUNKS4-NOT: _matmul
// CHUNKS64-LABEL: func.func @gather_two_gemms
// CHUNKS64-NOT: _matmul
dist.mesh @mesh ["tp" = 2]
func.func @gather_two_gemms(%x: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %wq: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %wk: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %q = tfm.linear %g, %wq : (tensor<12x1x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %k = tfm.linear %g, %wk : (tensor<12x1x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  return %q, %k : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
}

