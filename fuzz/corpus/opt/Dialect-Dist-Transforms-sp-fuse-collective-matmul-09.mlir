
// One gather read by three weight gradients (Llama's q, k, v): one fused op,
// one gathered chunk stream, at the first of them; the GEMM between them
// still reads the weight gradient it read.
// CHECK-LABEL: func.func @gather_three_grad_weights
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[DQ:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[DK:[a-z0-9]+]]: tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>, %[[DV:[a-z0-9]+]]: tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>)
// CHECK-NEXT: %[[DW:[0-9]+]]:3 = dist.all_gather_matmul_grad_weight %[[X]], %[[DQ]], %[[DK]], %[[DV]] on @mesh["tp"] dim 0 chunks 2 : (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[S:[0-9]+]] = tfm.scale %[[DW]]#0
// CHECK-NEXT: return %[[S]], %[[DW]]#1, %[[DW]]#2
dist.mesh @mesh ["tp" = 2]
func.func @gather_three_grad_weights(%x: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dq: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %dk: tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>, %dv: tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %wq = tfm.linear_grad_weight %g, %dq : (tensor<12x1x8xf32>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %sq = tfm.scale %wq by 2.0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %wk = tfm.linear_grad_weight %g, %dk : (tensor<12x1x8xf32>, tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %wv = tfm.linear_grad_weight %g, %dv : (tensor<12x1x8xf32>, tensor<12x1x2xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %sq, %wk, %wv : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

