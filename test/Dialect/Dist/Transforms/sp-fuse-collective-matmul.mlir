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

// -----

// One gather read by two GEMMs (Llama's q and k of one norm output): the
// gathered input is needed whole twice, so nothing is fused.
// CHECK-LABEL: func.func @gather_two_gemms
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[WQ:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[WK:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[G:[0-9]+]] = dist.all_gather %[[X]] on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[Q:[0-9]+]] = tfm.linear %[[G]], %[[WQ]] :
// CHECK-NEXT: %[[K:[0-9]+]] = tfm.linear %[[G]], %[[WK]] :
// CHECK-NEXT: return %[[Q]], %[[K]]
// CHECK-NOT: _matmul
// CHUNKS4-LABEL: func.func @gather_two_gemms
// CHUNKS4-NOT: _matmul
// CHUNKS64-LABEL: func.func @gather_two_gemms
// CHUNKS64-NOT: _matmul
dist.mesh @mesh ["tp" = 2]
func.func @gather_two_gemms(%x: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %wq: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %wk: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %q = tfm.linear %g, %wq : (tensor<12x1x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %k = tfm.linear %g, %wk : (tensor<12x1x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  return %q, %k : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
}

// -----

// A row GEMM, the reduce-scatter of its partial output and the bias added
// after it: one fused op that adds the bias once, after the reduction.
// CHECK-LABEL: func.func @row_scatter_bias
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[B:[a-z0-9]+]]: tensor<8xf32>)
// CHECK-NOT: tfm.linear
// CHECK-NOT: dist.reduce_scatter
// CHECK: %[[Y:[0-9]+]] = dist.matmul_reduce_scatter %[[A]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out
// CHECK-SAME: : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[Y]]
// CHUNKS4-LABEL: func.func @row_scatter_bias
// CHUNKS4: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 3 weight_layout in_out
// CHUNKS64-LABEL: func.func @row_scatter_bias
// CHUNKS64: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 6 weight_layout in_out
dist.mesh @mesh ["tp" = 2]
func.func @row_scatter_bias(%a: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %b: tensor<8xf32>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear %a, %w weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.bias_add %s, %b : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>
  return %y : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// A bias-free row GEMM (Llama's o_proj) with the default out_in weight: the
// fused op has no bias and no weight_layout.
// CHECK-LABEL: func.func @row_scatter
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>)
// CHECK-NEXT: %[[Y:[0-9]+]] = dist.matmul_reduce_scatter %[[A]], %[[W]] on @mesh["tp"] dim 0 chunks 2 : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[Y]]
// CHUNKS4-LABEL: func.func @row_scatter
// CHUNKS4: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 3 :
// CHUNKS64-LABEL: func.func @row_scatter
// CHUNKS64: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 6 :
dist.mesh @mesh ["tp" = 2]
func.func @row_scatter(%a: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear %a, %w : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %s : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

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

// -----

// The backward of a column GEMM: the input gradient (partial over tp) and
// its reduce-scatter along the sequence are the forward GEMM of dy with the
// weight read in the other layout, fused as dist.matmul_reduce_scatter:
// out_in becomes in_out.
// CHECK-LABEL: func.func @grad_input_scatter
// CHECK-SAME: (%[[DY:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[DX:[0-9]+]] = dist.matmul_reduce_scatter %[[DY]], %[[W]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[DX]]
// CHUNKS4-LABEL: func.func @grad_input_scatter
// CHUNKS4: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 3 weight_layout in_out :
// CHUNKS64-LABEL: func.func @grad_input_scatter
// CHUNKS64: dist.matmul_reduce_scatter {{.*}} dim 0 chunks 6 weight_layout in_out :
dist.mesh @mesh ["tp" = 2]
func.func @grad_input_scatter(%dy: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %p = tfm.linear_grad_input %dy, %w : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
  %s = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %s : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

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

// -----

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

// -----

// The weight gradient of a column GEMM reads the saved sequence shard
// re-gathered: fused with the gather, the weight layout carried over.
// CHECK-LABEL: func.func @gather_grad_weight
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[DY:[a-z0-9]+]]: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>)
// CHECK-NEXT: %[[DW:[0-9]+]] = dist.all_gather_matmul_grad_weight %[[X]], %[[DY]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: return %[[DW]]
// CHUNKS4-LABEL: func.func @gather_grad_weight
// CHUNKS4: dist.all_gather_matmul_grad_weight {{.*}} dim 0 chunks 3 weight_layout in_out :
// CHUNKS64-LABEL: func.func @gather_grad_weight
// CHUNKS64: dist.all_gather_matmul_grad_weight {{.*}} dim 0 chunks 6 weight_layout in_out :
dist.mesh @mesh ["tp" = 2]
func.func @gather_grad_weight(%x: tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dy: tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xf32>
  %dw = tfm.linear_grad_weight %g, %dy weight_layout in_out : (tensor<12x1x8xf32>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  return %dw : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
}

// -----

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

// -----

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
