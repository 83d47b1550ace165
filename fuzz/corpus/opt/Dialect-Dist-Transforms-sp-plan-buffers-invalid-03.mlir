
func.func @outside(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 128 : i64, dist.arena_max_live = 128 : i64} {
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena bytes [64, 192) ends past the arena of 128 bytes}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 64>} : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

