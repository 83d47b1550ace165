
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

