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

