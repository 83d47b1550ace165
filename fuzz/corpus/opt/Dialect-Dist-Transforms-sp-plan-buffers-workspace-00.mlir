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

