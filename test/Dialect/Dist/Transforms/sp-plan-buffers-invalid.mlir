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

// -----

// A value read after its bytes were handed to another: the kept value %a
// is still read by the add.
func.func @clobbered(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 384 : i64} {
  // expected-note @+1 {{the other value is defined here}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %b = tfm.silu %x {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena bytes [0, 128) overlaps result #0 of 'tfm.silu' at [0, 128), which is still live}}
  %c = tfm.silu %b {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %d = tfm.add %a, %c {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

func.func @misaligned(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 128 : i64} {
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena offset 32 is not a multiple of 64 bytes}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 32>} : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

func.func @outside(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 128 : i64, dist.arena_max_live = 128 : i64} {
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena bytes [64, 192) ends past the arena of 128 bytes}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 64>} : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// An op added after planning has no offset.
func.func @unplanned(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 128 : i64, dist.arena_max_live = 128 : i64} {
  // expected-error @+1 {{'tfm.silu' op needs 'dist.arena_offsets' with 1 offset(s): the function has an arena plan}}
  %a = tfm.silu %x : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// Only kernels that work in place may write over their own operand.
func.func @not_in_place(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 128 : i64, dist.arena_max_live = 128 : i64} {
  // expected-note @+1 {{the other value is defined here}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena bytes [0, 128) overlaps result #0 of 'tfm.silu' at [0, 128), which is still live}}
  %b = tfm.silu %a {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// An in-place op may not take over an operand that is read later.
func.func @operand_still_read(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 256 : i64} {
  // expected-note @+1 {{the other value is defined here}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  // expected-error @+1 {{result #0 of 'tfm.scale' at arena bytes [0, 128) overlaps result #0 of 'tfm.silu' at [0, 128), which is still live}}
  %b = tfm.scale %a by 2.0 {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %c = tfm.add %a, %b {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
