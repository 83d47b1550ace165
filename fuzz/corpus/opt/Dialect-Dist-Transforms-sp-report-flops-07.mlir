
// all_gather_matmul_grad_weight: one GEMM per dy against the gathered
// [16x2x32] input: 2 * (16 * 2 * 48) * 32 + 2 * (16 * 2 * 16) * 32.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 131072,
dist.mesh @mesh ["tp" = 2] roles [tensor]
func.func @f(%x: tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, %dy1: tensor<16x2x48xf32, #dist.layout<@mesh, tp = S(2)>>, %dy2: tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %d1, %d2 = dist.all_gather_matmul_grad_weight %x, %dy1, %dy2 on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<16x2x48xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>)
  return %d1, %d2 : tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>
}

