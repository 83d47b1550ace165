// RUN: sp-opt %s -split-input-file --sp-report=memory -o /dev/null | FileCheck %s

// The FLOPs sp-report=memory counts per op (Flops.h), one op per case:
// GEMMs 2*M*N*K, attention 4*b*heads*s*s*d (half with causal), its backward
// 2.5 times that, elementwise ops 0. Ops before tfm.backward_begins are the
// forward, ops after it the backward, ops marked tfm.recomputed the
// recompute; extra_flops_fraction = recompute / step.

// linear [16x2x32] x [64x32]^T: 2 * 32 * 64 * 32.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 131072,
// CHECK-NEXT: "recompute": 0,
// CHECK-NEXT: "step": 131072
func.func @f(%x: tensor<16x2x32xf32>, %w: tensor<64x32xf32>) -> tensor<16x2x64xf32> {
  %y = tfm.linear %x, %w : (tensor<16x2x32xf32>, tensor<64x32xf32>) -> tensor<16x2x64xf32>
  return %y : tensor<16x2x64xf32>
}

// -----

// linear_grad_input: dx [16x2x32] = dy [16x2x64] x W: 2 * 32 * 64 * 32, in
// the backward.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 131072,
// CHECK-NEXT: "forward": 0,
func.func @f(%dy: tensor<16x2x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x2x32xf32> {
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %dx = tfm.linear_grad_input %dy, %w : (tensor<16x2x64xf32>, tensor<64x32xf32>) -> tensor<16x2x32xf32>
  return %dx : tensor<16x2x32xf32>
}

// -----

// linear_grad_weight: dW [64x32] = dy^T x over 32 tokens: 2 * 32 * 64 * 32.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 131072,
func.func @f(%x: tensor<16x2x32xf32>, %dy: tensor<16x2x64xf32>) -> tensor<64x32xf32> {
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %dw = tfm.linear_grad_weight %x, %dy : (tensor<16x2x32xf32>, tensor<16x2x64xf32>) -> tensor<64x32xf32>
  return %dw : tensor<64x32xf32>
}

// -----

// attention, b 2, 4 heads of 8 over 16 positions (GQA: 2 kv heads do not
// change it): 4 * 2 * 4 * 16 * 16 * 8.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 65536,
func.func @f(%q: tensor<16x2x32xf32>, %k: tensor<16x2x16xf32>, %v: tensor<16x2x16xf32>) -> tensor<16x2x32xf32> {
  %o = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 : tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<16x2x32xf32>
  return %o : tensor<16x2x32xf32>
}

// -----

// Causal: half.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 32768,
func.func @f(%q: tensor<16x2x32xf32>, %k: tensor<16x2x16xf32>, %v: tensor<16x2x16xf32>) -> tensor<16x2x32xf32> {
  %o = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal} : tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<16x2x32xf32>
  return %o : tensor<16x2x32xf32>
}

// -----

// attention_grad, causal: 2.5 * 32768 (QK^T recomputed, then dV, dP, dQ, dK).
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 81920,
func.func @f(%do: tensor<16x2x32xf32>, %q: tensor<16x2x32xf32>, %k: tensor<16x2x16xf32>, %v: tensor<16x2x16xf32>) -> tensor<16x2x32xf32> {
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal} : tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>
  return %dq : tensor<16x2x32xf32>
}

// -----

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

// -----

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

// -----

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

// -----

// Elementwise ops, norms and the loss count 0.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 0,
// CHECK-NEXT: "recompute": 0,
// CHECK-NEXT: "step": 0
func.func @f(%x: tensor<16x2x32xf32>, %g: tensor<32xf32>) -> tensor<16x2x32xf32> {
  %a = tfm.gelu %x approximate none : tensor<16x2x32xf32>
  %b = tfm.rms_norm %a, %g eps 1.0e-5 : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32>
  %c = tfm.add %a, %b : tensor<16x2x32xf32>
  return %c : tensor<16x2x32xf32>
}

// -----

// A forward GEMM, its recomputed clone in the backward and a backward GEMM:
// recompute is a third of the step.
// CHECK-LABEL: "extra_flops_fraction": 0.33333
// CHECK-NEXT: "flops": {
// CHECK-NEXT: "backward": 131072,
// CHECK-NEXT: "forward": 131072,
// CHECK-NEXT: "recompute": 131072,
// CHECK-NEXT: "step": 393216
func.func @f(%x: tensor<16x2x32xf32>, %w: tensor<64x32xf32>) -> tensor<16x2x32xf32> {
  %y = tfm.linear %x, %w : (tensor<16x2x32xf32>, tensor<64x32xf32>) -> tensor<16x2x64xf32>
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %y2 = tfm.linear %x, %w {tfm.recomputed} : (tensor<16x2x32xf32>, tensor<64x32xf32>) -> tensor<16x2x64xf32>
  %dx = tfm.linear_grad_input %y2, %w : (tensor<16x2x64xf32>, tensor<64x32xf32>) -> tensor<16x2x32xf32>
  return %dx : tensor<16x2x32xf32>
}

// -----

// Ring attention (cp = 2, this rank's 8 zigzag rows of 16): this rank's
// queries against the keys of both ranks, as tfm.attention's on the
// gathered K/V: 4 * b 2 * heads 4 * s_q 8 * s_k 16 * d 16 / 2 (causal) =
// 32768, and its backward 2.5 times that, 81920 (no tfm.backward_begins:
// both in the forward).
// CHECK: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 114688,
// CHECK-NEXT: "recompute": 0,
// CHECK-NEXT: "step": 114688
dist.mesh @mesh ["cp" = 2] roles [context]
func.func @ring(%q: tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %k: tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %v: tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %p: tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %dy: tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>) {
  %o, %lse = dist.ring_attention %q, %k, %v positions %p on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal}
      : (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>)
      -> (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
  %dq, %dk, %dv = dist.ring_attention_grad %dy, %q, %k, %v, %o, %lse positions %p on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal}
      : (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>)
      -> (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
  return
}
