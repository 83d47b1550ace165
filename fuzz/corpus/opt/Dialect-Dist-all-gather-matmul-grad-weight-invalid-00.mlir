// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of dist.all_gather_matmul_grad_weight; the
// round trip is in all-gather-matmul-grad-weight.mlir.

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_axis(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{axis 'pp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["pp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

