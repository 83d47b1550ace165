
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
