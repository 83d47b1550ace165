
// The weight gradient of a column GEMM reads the saved sequence shard
// re-gathered: fused with the gather, the weight layout carried over.
// CHECK-LABEL: func.func @gather_grad_weight
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[DY:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>)
// CHECK-NEXT: %[[DW:[0-9]+]] = dist.all_gather_matmul_grad_weight %[[X]], %[[DY]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: return %[[DW]]
// CHUNKS4-LABEL: func.func @gather_grad_weight
// CHUNKS4: dist.all_gather_matmul_grad_weight {{.*}} dim 0 chunks 3 weight_layout in_out :
// CHUNKS64-LABEL: func.func @gather_grad_weight
// CHUNKS64: dist.all_gather_matmul_grad_weight {{.*}} dim 0 chunks 6 weight_layout in_out :
dist.mesh @mesh ["tp" = 2]
func.func @gather_grad_weight(%x: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dy: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %dw = tfm.linear_grad_weight %g, %dy weight_layout in_out : (tensor<12x1x8xf32>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  return %dw : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
}

