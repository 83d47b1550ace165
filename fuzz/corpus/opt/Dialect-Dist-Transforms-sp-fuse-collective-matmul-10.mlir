
// Gathers that stay: along another dimension than the sequence; read by a
// weight gradient and by something else; read as a weight gradient's dy
// (the row GEMM's backward, whose input gradient reads it too); read by two
// weight gradients when the second one's dy is computed after the first
// (the fused op would have to wait for it).
// CHECK-LABEL: func.func @gather_grad_weight_not_fused
// CHECK-NEXT: %[[G1:[0-9]+]] = dist.all_gather %{{.*}} dim 1
// CHECK-NEXT: tfm.linear_grad_weight %[[G1]]
// CHECK-NEXT: %[[G2:[0-9]+]] = dist.all_gather %{{.*}} dim 0
// CHECK-NEXT: tfm.linear_grad_weight %[[G2]]
// CHECK-NEXT: tfm.scale %[[G2]]
// CHECK-NEXT: %[[G3:[0-9]+]] = dist.all_gather %{{.*}} dim 0
// CHECK-NEXT: tfm.linear_grad_weight %{{.*}}, %[[G3]]
// CHECK-NEXT: %[[G4:[0-9]+]] = dist.all_gather %{{.*}} dim 0
// CHECK-NEXT: tfm.linear_grad_weight %[[G4]]
// CHECK-NEXT: %[[LATE:[0-9]+]] = tfm.scale
// CHECK-NEXT: tfm.linear_grad_weight %[[G4]], %[[LATE]]
// CHECK-NOT: _matmul
// CHUNKS4-LABEL: func.func @gather_grad_weight_not_fused
// CHUNKS4-NOT: _matmul
dist.mesh @mesh ["tp" = 2]
func.func @gather_grad_weight_not_fused(%x: tensor<12x1x8xf32, #dist.layout<@mesh, tp = S(1)>>, %dy: tensor<12x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, %s: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dys: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %a: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x8xf32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %g1 = dist.all_gather %x on @mesh["tp"] dim 1 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<12x2x8xf32>
  %w1 = tfm.linear_grad_weight %g1, %dy : (tensor<12x2x8xf32>, tensor<12x2x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %g2 = dist.all_gather %s on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %w2 = tfm.linear_grad_weight %g2, %dys : (tensor<12x1x8xf32>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %o2 = tfm.scale %g2 by 2.0 : tensor<12x1x8xf32>
  %g3 = dist.all_gather %s on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %w3 = tfm.linear_grad_weight %a, %g3 : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x8xf32>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  %g4 = dist.all_gather %s on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %w4 = tfm.linear_grad_weight %g4, %dys : (tensor<12x1x8xf32>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %late = tfm.scale %dys by 2.0 : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %w5 = tfm.linear_grad_weight %g4, %late : (tensor<12x1x8xf32>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %w1, %w2, %o2, %w3, %w4, %w5 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x8xf32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
}
