
// An input gradient scattered along another dimension than the sequence,
// and one also read by something else: neither is fused.
// CHECK-LABEL: func.func @grad_input_not_fused
// CHECK-NEXT: %[[P:[0-9]+]] = tfm.linear_grad_input
// CHECK-NEXT: dist.reduce_scatter %[[P]] on @mesh["tp"] dim 1 :
// CHECK-NEXT: %[[Q:[0-9]+]] = tfm.linear_grad_input
// CHECK-NEXT: dist.reduce_scatter %[[Q]] on @mesh["tp"] dim 0 :
// CHECK-NEXT: dist.all_reduce %[[Q]]
// CHECK-NOT: _matmul
// CHUNKS4-LABEL: func.func @grad_input_not_fused
// CHUNKS4-NOT: _matmul
dist.mesh @mesh ["tp" = 2]
func.func @grad_input_not_fused(%dy: tensor<12x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<12x1x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<6x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x2x8xf32>) {
  %p = tfm.linear_grad_input %dy, %w : (tensor<12x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x2x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 1 : tensor<12x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %q = tfm.linear_grad_input %dy, %w : (tensor<12x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x2x8xf32, #dist.layout<@mesh, tp = P>>
  %t = dist.reduce_scatter %q on @mesh["tp"] dim 0 : tensor<12x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %r = dist.all_reduce %q on @mesh["tp"] sum : tensor<12x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<12x2x8xf32>
  return %s, %t, %r : tensor<12x1x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<6x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x2x8xf32>
}

