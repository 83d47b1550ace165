
// all_gather_matmul: the GEMM of the gathered [16x2x32] input:
// 2 * (16 * 2 * 48) * 32.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 98304,
dist.mesh @mesh ["tp" = 2] roles [tensor]
func.func @f(%x: tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<16x2x48xf32, #dist.layout<@mesh, tp = S(2)>> {
  %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<16x2x48xf32, #dist.layout<@mesh, tp = S(2)>>
  return %y : tensor<16x2x48xf32, #dist.layout<@mesh, tp = S(2)>>
}

