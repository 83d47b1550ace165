// RUN: sp-opt %s -split-input-file -sp-fuse-collective-matmul | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-fuse-collective-matmul="chunks=4" | FileCheck %s --check-prefix=CHUNKS4
// RUN: sp-opt %s -split-input-file -sp-fuse-collective-matmul="chunks=64" | FileCheck %s --check-prefix=CHUNKS64

// sp-fuse-collective-matmul on hand-written partitioned IR: a sequence
// all-gather feeding one column GEMM becomes dist.all_gather_matmul, a
// bias-free row GEMM whose partial output is reduce-scattered (and the
// bias_add after it) becomes dist.matmul_reduce_scatter, in as many chunks
// as divide the local sequence (6 here) up to the option (default 2). In
// the backward, a column GEMM's input gradient and its reduce-scatter become
// dist.matmul_reduce_scatter with the weight layout flipped, and a gather
// read only by weight gradients dist.all_gather_matmul_grad_weight.

// An all-gather along the sequence read by one column GEMM: fused, the
// bias and weight layout carried over.
// CHECK-LABEL: func.func @gather_column
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[W:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, %[[B:[a-z0-9]+]]: tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NOT: dist.all_gather {{.*}}
// CHECK-NOT: tfm.linear
// CHECK: %[[Y:[0-9]+]] = dist.all_gather_matmul %[[X]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out
// CHECK-SAME: : (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: return %[[Y]]
// CHUNKS4-LABEL: func.func @gather_column
// CHUNKS4: dist.all_gather_matmul {{.*}} dim 0 chunks 3 weight_layout in_out
// CHUNKS64-LABEL: func.func @gather_column
// CHUNKS64: dist.all_gather_matmul {{.*}} dim 0 chunks 6 weight_layout in_out
dist.mesh @mesh ["tp" = 2]
func.func @gather_column(%x: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, %b: tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %y = tfm.linear %g, %w, %b weight_layout in_out : (tensor<12x1x8xf32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  return %y : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
}

