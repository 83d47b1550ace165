
// GPT-2's Conv1D weight (in_out): the fused op reads it out_in (the
// default, not printed).
// CHECK-LABEL: func.func @grad_input_scatter_in_out
// CHECK-SAME: (%[[DY:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>)
// CHECK-NEXT: %[[DX:[0-9]+]] = dist.matmul_reduce_scatter %[[DY]], %[[W]] on @mesh["tp"] dim 0 chunks 2 : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[DX]]
dist.mesh @mesh ["tp" = 2]
func.func @grad_input_scatter_in_out(%dy: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %s : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

