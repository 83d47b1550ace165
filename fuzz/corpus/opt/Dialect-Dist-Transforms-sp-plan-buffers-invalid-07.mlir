
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

