// RUN: sp-opt %s -split-input-file -sp-plan-buffers | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-plan-buffers -sp-verify -o /dev/null

// A chain: each value dies when the next is computed, so the third reuses
// the first one's bytes.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 256 : i64}
// CHECK: %[[A:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = tfm.silu %[[A]] {dist.arena_offsets = array<i64: 128>}
// CHECK: %[[C:.*]] = tfm.silu %[[B]] {dist.arena_offsets = array<i64: 0>}
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %b = tfm.silu %a : tensor<4x8xf32>
  %c = tfm.silu %b : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A value kept for a late use (an activation saved for the backward) keeps
// its bytes; the short-lived ones share the rest.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: attributes {dist.arena_bytes = 384 : i64, dist.arena_max_live = 384 : i64}
// CHECK: %[[A:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 128>}
// CHECK: %[[C:.*]] = tfm.silu %[[B]] {dist.arena_offsets = array<i64: 256>}
// CHECK: tfm.add %[[A]], %[[C]] {dist.arena_offsets = array<i64: 128>}
func.func @kept(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %b = tfm.silu %x : tensor<4x8xf32>
  %c = tfm.silu %b : tensor<4x8xf32>
  %d = tfm.add %a, %c : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// Offsets are multiples of 64 bytes; the arena ends at the last byte used,
// and the lower bound counts bytes, not slots. Results that are returned
// (or never read) still get their own bytes.
// CHECK-LABEL: func.func @aligned
// CHECK-SAME: attributes {dist.arena_bytes = 88 : i64, dist.arena_max_live = 48 : i64}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 64>}
func.func @aligned(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tfm.silu %x : tensor<2x3xf32>
  %b = tfm.silu %a : tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}

// -----

// An op with several results gets one offset per result; parameters live
// outside the arena.
// CHECK-LABEL: func.func @multi
// CHECK-SAME: attributes {dist.arena_bytes = 768 : i64, dist.arena_max_live = 768 : i64}
// CHECK: tfm.get_param @w : tensor<24x8xf32>{{$}}
// CHECK: tfm.linear {{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: tfm.qkv_split {{.*}} {dist.arena_offsets = array<i64: 384, 512, 640>}
// CHECK: tfm.add {{.*}} {dist.arena_offsets = array<i64: 0>}
tfm.param @w : tensor<24x8xf32> init normal(0.02)
func.func @multi(%x: tensor<4x1x8xf32>) -> tensor<4x1x8xf32> {
  %w = tfm.get_param @w : tensor<24x8xf32>
  %h = tfm.linear %x, %w : (tensor<4x1x8xf32>, tensor<24x8xf32>) -> tensor<4x1x24xf32>
  %q, %k, %v = tfm.qkv_split %h packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<4x1x24xf32> -> tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>
  %s = tfm.add %q, %k : tensor<4x1x8xf32>
  %t = tfm.add %s, %v : tensor<4x1x8xf32>
  return %t : tensor<4x1x8xf32>
}

// -----

// In place: an all-reduce or a scaling writes over an operand that dies at
// it (gradients reduced over dp, scaled by 1/dp), so the pair is one
// buffer; a scaled value still read later keeps its own bytes. The bound
// counts each buffer once.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: attributes {dist.arena_bytes = 384 : i64, dist.arena_max_live = 384 : i64}
// CHECK: %[[A:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[R:.*]] = dist.all_reduce %[[A]] on @mesh["dp"] sum {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = tfm.scale %[[R]] by 5.000000e-01 {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[C:.*]] = tfm.scale %[[B]] by 2.000000e+00 {dist.arena_offsets = array<i64: 128>}
// CHECK: tfm.add %[[C]], %[[B]] {dist.arena_offsets = array<i64: 256>}
dist.mesh @mesh ["dp" = 2]
func.func @in_place(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %r = dist.all_reduce %a on @mesh["dp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = tfm.scale %r by 0.5 : tensor<4x8xf32>
  %c = tfm.scale %b by 2.0 : tensor<4x8xf32>
  %d = tfm.add %c, %b : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
