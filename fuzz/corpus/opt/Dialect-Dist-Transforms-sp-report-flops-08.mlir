
// matmul_reduce_scatter: the GEMM of the whole [16x2x16] input before the
// scatter: 2 * (16 * 2 * 16) * 32.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 32768,
dist.mesh @mesh ["tp" = 2] roles [tensor]
func.func @f(%x: tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>> {
  %y = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 2 : (tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
  return %y : tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
}

