// RUN: sp-opt %s -split-input-file --tfm-fuse-epilogues | FileCheck %s
// RUN: sp-opt %s -split-input-file --tfm-fuse-epilogues --tfm-fuse-epilogues | FileCheck %s

// A GELU of a linear's result fuses with the linear, with or without a bias,
// in either weight layout and GELU form, f32 or bf16. The fused op's pre
// replaces the linear's result for its other readers (the GELU's gradient);
// its result replaces the GELU's. Discardable attributes are kept.
// CHECK-LABEL: func.func @fuses
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x32xbf16>, %[[W:.*]]: tensor<32x128xbf16>, %[[B:.*]]: tensor<128xbf16>, %[[V:.*]]: tensor<128x32xf32>, %[[XF:.*]]: tensor<8x2x32xf32>, %[[DY:.*]]: tensor<8x2x128xbf16>)
// CHECK-NEXT: %[[PRE:.*]], %[[Y:.*]] = tfm.linear_gelu %[[X]], %[[W]], %[[B]] weight_layout in_out approximate tanh {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<32x128xbf16>, tensor<128xbf16>) -> (tensor<8x2x128xbf16>, tensor<8x2x128xbf16>)
// CHECK-NEXT: %[[PRE2:.*]], %[[Z:.*]] = tfm.linear_gelu %[[XF]], %[[V]] approximate none : (tensor<8x2x32xf32>, tensor<128x32xf32>) -> (tensor<8x2x128xf32>, tensor<8x2x128xf32>)
// CHECK-NEXT: %[[DX:.*]] = tfm.gelu_grad %[[DY]], %[[PRE]] approximate tanh
// CHECK-NEXT: return %[[Y]], %[[Z]], %[[DX]]
func.func @fuses(%x: tensor<8x2x32xbf16>, %w: tensor<32x128xbf16>,
                 %b: tensor<128xbf16>, %v: tensor<128x32xf32>,
                 %xf: tensor<8x2x32xf32>, %dy: tensor<8x2x128xbf16>)
    -> (tensor<8x2x128xbf16>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>) {
  %h = tfm.linear %x, %w, %b weight_layout in_out {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<32x128xbf16>, tensor<128xbf16>) -> tensor<8x2x128xbf16>
  %y = tfm.gelu %h approximate tanh {tfm.in_micro_batch = 1 : i64} : tensor<8x2x128xbf16>
  %g = tfm.linear %xf, %v : (tensor<8x2x32xf32>, tensor<128x32xf32>) -> tensor<8x2x128xf32>
  %z = tfm.gelu %g approximate none : tensor<8x2x128xf32>
  %dx = tfm.gelu_grad %dy, %h approximate tanh : tensor<8x2x128xbf16>
  return %y, %z, %dx : tensor<8x2x128xbf16>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>
}

// -----

// Left alone: a GELU of an f32 copy of a bf16 GEMM's result, of a block
// argument, a pair whose discardable
// attributes differ (a recomputed GELU), and a linear feeding a SiLU.
// CHECK-LABEL: func.func @keeps
// CHECK-NOT: tfm.linear_gelu
// CHECK-COUNT-3: tfm.linear {{.*}}
// CHECK-NOT: tfm.linear_gelu
func.func @keeps(%x: tensor<8x2x32xbf16>, %w: tensor<32x128xbf16>,
                 %p: tensor<8x2x128xf32>)
    -> (tensor<8x2x128xf32>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>,
        tensor<8x2x128xbf16>) {
  %h = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<32x128xbf16>) -> tensor<8x2x128xbf16>
  %c = tfm.convert %h : tensor<8x2x128xbf16> -> tensor<8x2x128xf32>
  %y = tfm.gelu %c approximate tanh : tensor<8x2x128xf32>
  %z = tfm.gelu %p approximate tanh : tensor<8x2x128xf32>
  %g = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<32x128xbf16>) -> tensor<8x2x128xbf16>
  %r = tfm.gelu %g approximate tanh {tfm.recomputed} : tensor<8x2x128xbf16>
  %s0 = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<32x128xbf16>) -> tensor<8x2x128xbf16>
  %s = tfm.silu %s0 : tensor<8x2x128xbf16>
  return %y, %z, %r, %s : tensor<8x2x128xf32>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>, tensor<8x2x128xbf16>
}

// -----

// The backward: a GELU's gradient of an input gradient read by it alone
// fuses with it, at the GELU's gradient, with the bias gradient of its
// result where there is one (its gradient tag moves to dbias). Either
// weight layout, tanh or exact.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[DY:.*]]: tensor<8x2x32xbf16>, %[[W:.*]]: tensor<128x32xbf16>, %[[PRE:.*]]: tensor<8x2x128xbf16>, %[[V:.*]]: tensor<32x128xf32>, %[[DYF:.*]]: tensor<8x2x32xf32>, %[[PREF:.*]]: tensor<8x2x128xf32>)
// CHECK-NEXT: %[[DX:.*]], %[[DB:.*]] = tfm.linear_gelu_grad %[[DY]], %[[W]], %[[PRE]] weight_layout in_out approximate tanh {tfm.contributes = [unit, "h.0.mlp.c_fc.bias#0"]} : (tensor<8x2x32xbf16>, tensor<128x32xbf16>, tensor<8x2x128xbf16>) -> (tensor<8x2x128xbf16>, tensor<128xf32>)
// CHECK-NEXT: %[[DZ:.*]] = tfm.linear_gelu_grad %[[DYF]], %[[V]], %[[PREF]] approximate none : (tensor<8x2x32xf32>, tensor<32x128xf32>, tensor<8x2x128xf32>) -> tensor<8x2x128xf32>
// CHECK-NEXT: return %[[DX]], %[[DB]], %[[DZ]]
func.func @backward(%dy: tensor<8x2x32xbf16>, %w: tensor<128x32xbf16>,
                    %pre: tensor<8x2x128xbf16>, %v: tensor<32x128xf32>,
                    %dyf: tensor<8x2x32xf32>, %pref: tensor<8x2x128xf32>)
    -> (tensor<8x2x128xbf16>, tensor<128xf32>, tensor<8x2x128xf32>) {
  %da = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<128x32xbf16>) -> tensor<8x2x128xbf16>
  %dx = tfm.gelu_grad %da, %pre approximate tanh : tensor<8x2x128xbf16>
  %db = tfm.bias_grad %dx {tfm.contributes = ["h.0.mlp.c_fc.bias#0"]} : tensor<8x2x128xbf16> -> tensor<128xf32>
  %dg = tfm.linear_grad_input %dyf, %v : (tensor<8x2x32xf32>, tensor<32x128xf32>) -> tensor<8x2x128xf32>
  %dz = tfm.gelu_grad %dg, %pref approximate none : tensor<8x2x128xf32>
  return %dx, %db, %dz : tensor<8x2x128xbf16>, tensor<128xf32>, tensor<8x2x128xf32>
}

// -----

// Left alone in the backward: an input gradient read elsewhere too, one
// that is also the GELU's input, and a pair in different micro-batches; a
// bias gradient of another micro-batch stays out of a fused pair.
// CHECK-LABEL: func.func @backward_keeps
// CHECK-COUNT-3: tfm.gelu_grad
// CHECK: tfm.linear_gelu_grad {{.*}} {tfm.in_micro_batch = 1 : i64} : ({{.*}}) -> tensor<8x2x128xbf16>
// CHECK-NEXT: tfm.bias_grad
// CHECK-NOT: tfm.linear_gelu_grad
func.func @backward_keeps(%dy: tensor<8x2x32xbf16>, %w: tensor<128x32xbf16>,
                          %pre: tensor<8x2x128xbf16>)
    -> (tensor<8x2x128xbf16>, tensor<8x2x128xbf16>, tensor<8x2x128xbf16>,
        tensor<8x2x128xbf16>, tensor<8x2x128xbf16>, tensor<128xbf16>) {
  %a = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<128x32xbf16>) -> tensor<8x2x128xbf16>
  %ga = tfm.gelu_grad %a, %pre approximate tanh : tensor<8x2x128xbf16>
  %b = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<128x32xbf16>) -> tensor<8x2x128xbf16>
  %gb = tfm.gelu_grad %b, %b approximate tanh : tensor<8x2x128xbf16>
  %c = tfm.linear_grad_input %dy, %w weight_layout in_out {tfm.in_micro_batch = 0 : i64} : (tensor<8x2x32xbf16>, tensor<128x32xbf16>) -> tensor<8x2x128xbf16>
  %gc = tfm.gelu_grad %c, %pre approximate tanh {tfm.in_micro_batch = 1 : i64} : tensor<8x2x128xbf16>
  %d = tfm.linear_grad_input %dy, %w weight_layout in_out {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<128x32xbf16>) -> tensor<8x2x128xbf16>
  %gd = tfm.gelu_grad %d, %pre approximate tanh {tfm.in_micro_batch = 1 : i64} : tensor<8x2x128xbf16>
  %db = tfm.bias_grad %gd {tfm.in_micro_batch = 0 : i64} : tensor<8x2x128xbf16> -> tensor<128xbf16>
  return %a, %ga, %gb, %gc, %gd, %db : tensor<8x2x128xbf16>, tensor<8x2x128xbf16>, tensor<8x2x128xbf16>, tensor<8x2x128xbf16>, tensor<8x2x128xbf16>, tensor<128xbf16>
}

// -----

// A weight gradient and the bias gradient of its dy become one
// tfm.linear_grad_weight_bias at the earlier of the two, each result keeping
// its contribution tag (and the pair's micro-batch); with the bias gradient
// first too, and an f32 bias gradient of bf16 gradients.
// CHECK-LABEL: func.func @weight_and_bias
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x32xbf16>, %[[DY:.*]]: tensor<8x2x96xbf16>, %[[XF:.*]]: tensor<8x2x32xf32>, %[[DYF:.*]]: tensor<8x2x64xf32>)
// CHECK-NEXT: %[[DW:.*]], %[[DB:.*]] = tfm.linear_grad_weight_bias %[[X]], %[[DY]] weight_layout in_out {tfm.contributes = ["h.0.attn.c_attn.weight#0", "h.0.attn.c_attn.bias#0"], tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<8x2x96xbf16>) -> (tensor<32x96xbf16>, tensor<96xf32>)
// CHECK-NEXT: %[[DV:.*]], %[[DC:.*]] = tfm.linear_grad_weight_bias %[[XF]], %[[DYF]] : (tensor<8x2x32xf32>, tensor<8x2x64xf32>) -> (tensor<64x32xf32>, tensor<64xf32>)
// CHECK-NEXT: return %[[DW]], %[[DB]], %[[DV]], %[[DC]]
func.func @weight_and_bias(%x: tensor<8x2x32xbf16>, %dy: tensor<8x2x96xbf16>,
                           %xf: tensor<8x2x32xf32>, %dyf: tensor<8x2x64xf32>)
    -> (tensor<32x96xbf16>, tensor<96xf32>, tensor<64x32xf32>, tensor<64xf32>) {
  %dw = tfm.linear_grad_weight %x, %dy weight_layout in_out {tfm.contributes = ["h.0.attn.c_attn.weight#0"], tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<8x2x96xbf16>) -> tensor<32x96xbf16>
  %db = tfm.bias_grad %dy {tfm.contributes = ["h.0.attn.c_attn.bias#0"], tfm.in_micro_batch = 1 : i64} : tensor<8x2x96xbf16> -> tensor<96xf32>
  %dc = tfm.bias_grad %dyf : tensor<8x2x64xf32> -> tensor<64xf32>
  %dv = tfm.linear_grad_weight %xf, %dyf : (tensor<8x2x32xf32>, tensor<8x2x64xf32>) -> tensor<64x32xf32>
  return %dw, %db, %dv, %dc : tensor<32x96xbf16>, tensor<96xf32>, tensor<64x32xf32>, tensor<64xf32>
}

// -----

// Left alone: a bias gradient of another micro-batch, and one before the
// weight gradient's input is defined (no place for the pair). A bias
// gradient fuses with one weight gradient: of two reading the same dy, the
// first.
// CHECK-LABEL: func.func @weight_and_bias_keeps
// CHECK: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0
// CHECK-NEXT: tfm.bias_grad {{.*}}tfm.in_micro_batch = 1
// CHECK-NEXT: tfm.bias_grad
// CHECK-NEXT: tfm.gelu
// CHECK-NEXT: tfm.linear_grad_weight
// CHECK-NEXT: tfm.linear_grad_weight_bias
// CHECK-NEXT: tfm.linear_grad_weight %
// CHECK-NEXT: return
func.func @weight_and_bias_keeps(%x: tensor<8x2x32xbf16>, %dy: tensor<8x2x96xbf16>, %dz: tensor<8x2x96xbf16>, %dq: tensor<8x2x96xbf16>)
    -> (tensor<32x96xbf16>, tensor<96xbf16>, tensor<96xbf16>, tensor<32x96xbf16>, tensor<32x96xbf16>, tensor<32x96xbf16>, tensor<96xbf16>) {
  %a = tfm.linear_grad_weight %x, %dy weight_layout in_out {tfm.in_micro_batch = 0 : i64} : (tensor<8x2x32xbf16>, tensor<8x2x96xbf16>) -> tensor<32x96xbf16>
  %da = tfm.bias_grad %dy {tfm.in_micro_batch = 1 : i64} : tensor<8x2x96xbf16> -> tensor<96xbf16>
  %dbz = tfm.bias_grad %dz : tensor<8x2x96xbf16> -> tensor<96xbf16>
  %late = tfm.gelu %x approximate tanh : tensor<8x2x32xbf16>
  %b = tfm.linear_grad_weight %late, %dz weight_layout in_out : (tensor<8x2x32xbf16>, tensor<8x2x96xbf16>) -> tensor<32x96xbf16>
  %c1 = tfm.linear_grad_weight %x, %dq weight_layout in_out : (tensor<8x2x32xbf16>, tensor<8x2x96xbf16>) -> tensor<32x96xbf16>
  %c2 = tfm.linear_grad_weight %x, %dq weight_layout in_out : (tensor<8x2x32xbf16>, tensor<8x2x96xbf16>) -> tensor<32x96xbf16>
  %dq1 = tfm.bias_grad %dq : tensor<8x2x96xbf16> -> tensor<96xbf16>
  return %a, %da, %dbz, %b, %c1, %c2, %dq1 : tensor<32x96xbf16>, tensor<96xbf16>, tensor<96xbf16>, tensor<32x96xbf16>, tensor<32x96xbf16>, tensor<32x96xbf16>, tensor<96xbf16>
}

// -----

// GPT-NeoX's parallel residual: the attention's and the MLP's output
// linears read one dy, and each has its bias gradient; both pairs fuse.
// CHECK-LABEL: func.func @two_on_one_dy
// CHECK-NEXT: tfm.linear_grad_weight_bias %{{.*}}, %[[DY:[^ ]*]] {tfm.contributes = ["dense.weight#0", "dense.bias#0"]}
// CHECK-NEXT: tfm.linear_grad_weight_bias %{{.*}}, %[[DY]] {tfm.contributes = ["mlp.weight#0", "mlp.bias#0"]}
// CHECK-NEXT: return
func.func @two_on_one_dy(%a: tensor<8x2x32xbf16>, %m: tensor<8x2x128xbf16>, %dy: tensor<8x2x32xbf16>)
    -> (tensor<32x32xbf16>, tensor<32x128xbf16>, tensor<32xbf16>, tensor<32xbf16>) {
  %dwa = tfm.linear_grad_weight %a, %dy {tfm.contributes = ["dense.weight#0"]} : (tensor<8x2x32xbf16>, tensor<8x2x32xbf16>) -> tensor<32x32xbf16>
  %dwm = tfm.linear_grad_weight %m, %dy {tfm.contributes = ["mlp.weight#0"]} : (tensor<8x2x128xbf16>, tensor<8x2x32xbf16>) -> tensor<32x128xbf16>
  %dba = tfm.bias_grad %dy {tfm.contributes = ["dense.bias#0"]} : tensor<8x2x32xbf16> -> tensor<32xbf16>
  %dbm = tfm.bias_grad %dy {tfm.contributes = ["mlp.bias#0"]} : tensor<8x2x32xbf16> -> tensor<32xbf16>
  return %dwa, %dwm, %dba, %dbm : tensor<32x32xbf16>, tensor<32x128xbf16>, tensor<32xbf16>, tensor<32xbf16>
}

// -----

// SP's gathered column GEMM (dist.all_gather_matmul) and its GELU fuse into
// dist.all_gather_matmul_gelu at the GEMM, its attributes and discardable
// attributes kept; pre replaces the GEMM's result for the GELU's gradient.
// A GELU of a recomputed GEMM's result (other discardable attributes) and a
// GELU of an f32 copy of a bf16 result are left alone.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gathered
// CHECK-NEXT: %[[PRE:.*]], %[[Y:.*]] = dist.all_gather_matmul_gelu %{{.*}}, %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 weight_layout in_out approximate tanh {tfm.in_micro_batch = 0 : i64} : (tensor<4x2x32xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<32x64xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<64xbf16, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>)
// CHECK-NEXT: %[[R:.*]] = dist.all_gather_matmul
// CHECK-NEXT: tfm.gelu %[[R]] approximate tanh {tfm.recomputed}
// CHECK-NEXT: %[[C:.*]] = dist.all_gather_matmul
// CHECK-NEXT: %[[W:.*]] = tfm.convert %[[C]]
// CHECK-NEXT: tfm.gelu %[[W]] approximate none
// CHECK-NEXT: %[[DX:.*]] = tfm.gelu_grad %{{.*}}, %[[PRE]] approximate tanh
// CHECK-NEXT: return %[[Y]],
func.func @gathered(%x: tensor<4x2x32xbf16, #dist.layout<@mesh, tp = S(0)>>,
                    %w: tensor<32x64xbf16, #dist.layout<@mesh, tp = S(1)>>,
                    %b: tensor<64xbf16, #dist.layout<@mesh, tp = S(0)>>,
                    %dy: tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>)
    -> (tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>,
        tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>,
        tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>,
        tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>) {
  %h = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2 weight_layout in_out {tfm.in_micro_batch = 0 : i64} : (tensor<4x2x32xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<32x64xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<64xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
  %y = tfm.gelu %h approximate tanh {tfm.in_micro_batch = 0 : i64} : tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
  %r = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<4x2x32xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<32x64xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<64xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
  %ry = tfm.gelu %r approximate tanh {tfm.recomputed} : tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
  %c = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<4x2x32xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<32x64xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<64xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
  %cw = tfm.convert %c : tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
  %cy = tfm.gelu %cw approximate none : tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
  %dx = tfm.gelu_grad %dy, %h approximate tanh : tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
  return %y, %ry, %cy, %dx : tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x64xbf16, #dist.layout<@mesh, tp = S(2)>>
}

// -----

// Two GELUs of one linear's result: the first fuses, the second reads the
// fused op's pre (a GEMM fuses once).
// CHECK-LABEL: func.func @two_gelus
// CHECK-NEXT: %[[PRE:.*]], %[[A:.*]] = tfm.linear_gelu %{{.*}}, %{{.*}} approximate tanh
// CHECK-NEXT: %[[B:.*]] = tfm.gelu %[[PRE]] approximate none
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @two_gelus(%x: tensor<8x2x32xf32>, %w: tensor<128x32xf32>) -> (tensor<8x2x128xf32>, tensor<8x2x128xf32>) {
  %h = tfm.linear %x, %w : (tensor<8x2x32xf32>, tensor<128x32xf32>) -> tensor<8x2x128xf32>
  %a = tfm.gelu %h approximate tanh : tensor<8x2x128xf32>
  %b = tfm.gelu %h approximate none : tensor<8x2x128xf32>
  return %a, %b : tensor<8x2x128xf32>, tensor<8x2x128xf32>
}
