
// A row GEMM, the reduce-scatter of its partial output and the bias added
// after it: one fused op that adds the bias once, after the reduction.
// CHECK-LABEL: func.func @row_scatter_bias
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[B:[a-z0-9]+]]: tensor<8xf32>)
// CHECK-NOT: tfm.linear
// CHECK-NOT: dist.reduce_scatter
// CHECK: %[[Y:[0-9]+]] = dist.matmul_reduce_scatter %[[A]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out
// CHECK-SAME: : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[Y]]
// CHUNKS4-LABEL: func.func @row_scatter_bias
// CHUNKS4: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 3 weight_layout in_out
// CHUNKS64-LABEL: func.func @row_scatter_bias
// CHUNKS64: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 6 weight_layout in_out
dist.mesh @mesh ["tp" = 2]
func.func @row_scatter_bias(%a: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %b: tensor<8xf32>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear %a, %w weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.bias_add %s, %b : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>
  return %y : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

