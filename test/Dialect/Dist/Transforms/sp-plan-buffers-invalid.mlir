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

// -----

// A kernel's workspace (WorkspaceOpInterface) is live at its op, with the
// op's operands and results: here it is placed over the fused GEMM's input.
dist.mesh @mesh ["tp" = 2]
func.func @workspace_over_operand(%x: tensor<4x2x8xf32>, %w: tensor<16x8xf32>) -> tensor<8x2x16xf32>
    attributes {dist.arena_bytes = 1280 : i64, dist.arena_max_live = 1792 : i64} {
  // expected-note @+1 {{the other value is defined here}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x2x8xf32>
  // expected-error @+1 {{'dist.all_gather_matmul' op the workspace of 'dist.all_gather_matmul' at arena bytes [0, 512) overlaps result #0 of 'tfm.silu' at [0, 256), which is still live}}
  %y = dist.all_gather_matmul %a, %w on @mesh["tp"] dim 0 chunks 2 {dist.arena_offsets = array<i64: 256>, dist.workspace_offset = 0 : i64} : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<8x2x16xf32>
  return %y : tensor<8x2x16xf32>
}

// -----

// A value written while a workspace is in use may not take its bytes: the
// second result of the coalesced all-reduce over its own bucket.
dist.mesh @mesh ["tp" = 2]
func.func @result_over_workspace(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
    attributes {dist.arena_bytes = 640 : i64, dist.arena_max_live = 512 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %b = tfm.silu %x {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  // expected-error @+2 {{the workspace of 'dist.all_reduce_coalesced' at arena bytes [256, 512) overlaps result #1 of 'dist.all_reduce_coalesced' at [384, 512), which is still live}}
  // expected-note @+1 {{the other value is defined here}}
  %r:2 = dist.all_reduce_coalesced %a, %b on @mesh["tp"] sum {dist.arena_offsets = array<i64: 0, 384>, dist.workspace_offset = 256 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

dist.mesh @mesh ["tp" = 2]
func.func @workspace_misaligned(%x: tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    attributes {dist.arena_bytes = 2048 : i64, dist.arena_max_live = 1280 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<2x4x8xf32>
  // expected-error @+1 {{the workspace of 'dist.all_gather' at arena offset 800 is not a multiple of 64 bytes}}
  %g = dist.all_gather %a on @mesh["tp"] dim 1 {dist.arena_offsets = array<i64: 256>, dist.workspace_offset = 800 : i64} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  return %g : tensor<2x8x8xf32>
}

// -----

dist.mesh @mesh ["tp" = 2]
func.func @workspace_outside(%x: tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    attributes {dist.arena_bytes = 1024 : i64, dist.arena_max_live = 1280 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<2x4x8xf32>
  // expected-error @+1 {{the workspace of 'dist.all_gather' at arena bytes [768, 1280) ends past the arena of 1024 bytes}}
  %g = dist.all_gather %a on @mesh["tp"] dim 1 {dist.arena_offsets = array<i64: 256>, dist.workspace_offset = 768 : i64} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  return %g : tensor<2x8x8xf32>
}

// -----

// A collective on a strided dimension added after planning has no
// workspace.
dist.mesh @mesh ["tp" = 2]
func.func @workspace_missing(%x: tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    attributes {dist.arena_bytes = 1280 : i64, dist.arena_max_live = 1280 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<2x4x8xf32>
  // expected-error @+1 {{'dist.all_gather' op needs 'dist.workspace_offset' for its workspace of 512 bytes: the function has an arena plan}}
  %g = dist.all_gather %a on @mesh["tp"] dim 1 {dist.arena_offsets = array<i64: 256>} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  return %g : tensor<2x8x8xf32>
}

// -----

// Along the first dimension the gather needs no workspace: an offset for
// one is a stale plan.
dist.mesh @mesh ["tp" = 2]
func.func @workspace_not_needed(%x: tensor<2x4x8xf32>) -> tensor<4x4x8xf32>
    attributes {dist.arena_bytes = 1024 : i64, dist.arena_max_live = 768 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<2x4x8xf32>
  // expected-error @+1 {{'dist.all_gather' op has 'dist.workspace_offset' but its kernel needs no workspace}}
  %g = dist.all_gather %a on @mesh["tp"] dim 0 {dist.arena_offsets = array<i64: 256>, dist.workspace_offset = 768 : i64} : tensor<2x4x8xf32> -> tensor<4x4x8xf32>
  return %g : tensor<4x4x8xf32>
}
