
// A bias-free row GEMM (Llama's o_proj) with the default out_in weight: the
// fused op has no bias and no weight_layout.
// CHECK-LABEL: func.func @row_scatter
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>)
// CHECK-NEXT: %[[Y:[0-9]+]] = dist.matmul_reduce_scatter %[[A]], %[[W]] on @mesh["tp"] dim 0 chunks 2 : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[Y]]
// CHUNKS4-LABEL: func.func @row_scatter
// CHUNKS4: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 3 :
// CHUNKS64-LABEL: func.func @row_scatter
// CHUNKS64: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 6 :
dist.mesh @mesh ["tp" = 2]
func.func @row_scatter(%a: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear %a, %w : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %s : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

