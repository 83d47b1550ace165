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

