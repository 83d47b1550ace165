// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics

// sp-verify proves a recorded arena plan: no two values live at the same
// time share a byte, every offset is aligned and inside the arena.

func.func @overlap(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 256 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  // expected-note @+1 {{the other value is defined here}}
  %b = tfm.silu %a {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  // expected-error @+1 {{'tfm.silu' op result #0 of 'tfm.silu' at arena bytes [64, 192) overlaps result #0 of 'tfm.silu' at [128, 256), which is still live}}
  %c = tfm.silu %b {dist.arena_offsets = array<i64: 64>} : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

