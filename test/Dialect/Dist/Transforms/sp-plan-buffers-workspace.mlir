// RUN: sp-opt %s -split-input-file -sp-plan-buffers | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-plan-buffers -sp-verify -o /dev/null

// The workspace an op's kernel needs (WorkspaceOpInterface) is one more
// arena interval, live at that op only: it never meets the op's operands
// and results, and reuses bytes of values dead there.

// all_gather_matmul, 2 chunks on 2 ranks: min(2, 2) chunks x 2 ranks x
// (4 x 2 x 8 / 2) elements x 4 bytes = 512 bytes, live with its operand %a
// (256 bytes) and its result (1024 bytes), not with %z, which takes the
// workspace's bytes once the fused op is done.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: attributes {dist.arena_bytes = 2048 : i64, dist.arena_max_live = 2048 : i64}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 1536>}
// CHECK: dist.all_gather_matmul {{.*}} {dist.arena_offsets = array<i64: 0>, dist.workspace_offset = 1024 : i64}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 1024>}
dist.mesh @mesh ["tp" = 2]
func.func @fused(%x: tensor<4x2x8xf32>, %w: tensor<16x8xf32>) -> tensor<8x2x16xf32> {
  %a = tfm.silu %x : tensor<4x2x8xf32>
  %y = dist.all_gather_matmul %a, %w on @mesh["tp"] dim 0 chunks 2 : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<8x2x16xf32>
  %z = tfm.silu %y : tensor<8x2x16xf32>
  return %z : tensor<8x2x16xf32>
}

// -----

// A workspace reused across ops: each coalesced all-reduce packs its two
// operands (256 bytes) at offset 0, which the adds take over in between;
// the results are written in place over the operands.
// CHECK-LABEL: func.func @reused
// CHECK-SAME: attributes {dist.arena_bytes = 512 : i64, dist.arena_max_live = 512 : i64}
// CHECK: dist.all_reduce_coalesced {{.*}} {dist.arena_offsets = array<i64: 256, 384>, dist.workspace_offset = 0 : i64}
// CHECK: tfm.add {{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: dist.all_reduce_coalesced {{.*}} {dist.arena_offsets = array<i64: 256, 384>, dist.workspace_offset = 0 : i64}
// CHECK: tfm.add {{.*}} {dist.arena_offsets = array<i64: 0>}
dist.mesh @mesh ["tp" = 2]
func.func @reused(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %b = tfm.silu %x : tensor<4x8xf32>
  %r:2 = dist.all_reduce_coalesced %a, %b on @mesh["tp"] sum : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %c = tfm.add %r#0, %r#1 : tensor<4x8xf32>
  %d = tfm.silu %c : tensor<4x8xf32>
  %e = tfm.silu %c : tensor<4x8xf32>
  %s:2 = dist.all_reduce_coalesced %d, %e on @mesh["tp"] sum : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %f = tfm.add %s#0, %s#1 : tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// Collectives on a strided dimension pack / unpack through a workspace;
// along the first dimension, or with a single coalesced operand, they need
// none and get no offset. all_gather dim 1: the result's 512 bytes;
// all_to_all [2, 8, 8] split 2 concat 1: 512 packed + 512 unpacked.
// CHECK-LABEL: func.func @strided
// CHECK-SAME: attributes {dist.arena_bytes = 2560 : i64, dist.arena_max_live = 2560 : i64}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 512>}
// CHECK: dist.all_gather %{{.*}} dim 1 {dist.arena_offsets = array<i64: 1024>, dist.workspace_offset = 0 : i64}
// CHECK: dist.all_gather %{{.*}} dim 0 {dist.arena_offsets = array<i64: 1536>} :
// CHECK: dist.all_to_all {{.*}} {dist.arena_offsets = array<i64: 2048>, dist.workspace_offset = 0 : i64}
// CHECK: dist.all_reduce_coalesced {{.*}} {dist.arena_offsets = array<i64: {{[0-9]+}}>} :
// CHECK: dist.reduce_scatter_coalesced {{.*}} {dist.arena_offsets = array<i64: {{[0-9]+}}>} :
dist.mesh @mesh ["tp" = 2]
func.func @strided(%x: tensor<2x4x8xf32>) -> tensor<4x4x8xf32> {
  %a = tfm.silu %x : tensor<2x4x8xf32>
  %g = dist.all_gather %a on @mesh["tp"] dim 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %h = dist.all_gather %a on @mesh["tp"] dim 0 : tensor<2x4x8xf32> -> tensor<4x4x8xf32>
  %t = dist.all_to_all %g on @mesh["tp"] split 2 concat 1 : tensor<2x8x8xf32> -> tensor<2x16x4xf32>
  %u = dist.all_reduce_coalesced %t on @mesh["tp"] sum : (tensor<2x16x4xf32>) -> (tensor<2x16x4xf32>)
  %v = dist.reduce_scatter_coalesced %u on @mesh["tp"] : (tensor<2x16x4xf32>) -> (tensor<1x16x4xf32>)
  return %h : tensor<4x4x8xf32>
}
