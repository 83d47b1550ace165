
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

