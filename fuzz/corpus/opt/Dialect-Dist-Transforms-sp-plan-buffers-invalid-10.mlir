
dist.mesh @mesh ["tp" = 2]
func.func @workspace_outside(%x: tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    attributes {dist.arena_bytes = 1024 : i64, dist.arena_max_live = 1280 : i64} {
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<2x4x8xf32>
  // expected-error @+1 {{the workspace of 'dist.all_gather' at arena bytes [768, 1280) ends past the arena of 1024 bytes}}
  %g = dist.all_gather %a on @mesh["tp"] dim 1 {dist.arena_offsets = array<i64: 256>, dist.workspace_offset = 768 : i64} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  return %g : tensor<2x8x8xf32>
}

