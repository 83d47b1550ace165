
// A partial GEMM output also read by something else than its reduce-scatter
// must be materialised whole: nothing is fused.
// CHECK-LABEL: func.func @row_two_readers
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>)
// CHECK-NEXT: %[[P:[0-9]+]] = tfm.linear %[[A]], %[[W]] :
// CHECK-NEXT: %[[S:[0-9]+]] = dist.reduce_scatter %[[P]] on @mesh["tp"] dim 0 :
// CHECK-NEXT: %[[R:[0-9]+]] = dist.all_reduce %[[P]] on @mesh["tp"] sum :
// CHECK-NEXT: return %[[S]], %[[R]]
// CHUNKS4-LABEL: func.func @row_two_readers
// CHUNKS4-NOT: _matmul
// CHUNKS64-LABEL: func.func @row_two_readers
// CHUNKS64-NOT: _matmul
dist.mesh @mesh ["tp" = 2]
func.func @row_two_readers(%a: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x8xf32>) {
  %p = tfm.linear %a, %w : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %r = dist.all_reduce %p on @mesh["tp"] sum : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<12x1x8xf32>
  return %s, %r : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x8xf32>
}

