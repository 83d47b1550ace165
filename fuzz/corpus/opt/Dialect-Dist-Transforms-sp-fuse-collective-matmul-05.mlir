
// The backward of a column GEMM: the input gradient (partial over tp) and
// its reduce-scatter along the sequence are the forward GEMM of dy with the
// weight read in the other layout, fused as dist.matmul_reduce_scatter:
// out_in becomes in_out.
// CHECK-LABEL: func.func @grad_input_scatter
// CHECK-SAME: (%[[DY:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[DX:[0-9]+]] = dist.matmul_reduce_scatter %[[DY]], %[[W]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[DX]]
// CHUNKS4-LABEL: func.func @grad_input_scatter
// CHUNKS4: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 3 weight_layout in_out :
// CHUNKS64-LABEL: func.func @grad_input_scatter
// CHUNKS64: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 6 weight_layout in_out :
dist.mesh @mesh ["tp" = 2]
func.func @grad_input_scatter(%dy: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear_grad_input %dy, %w : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %s : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

