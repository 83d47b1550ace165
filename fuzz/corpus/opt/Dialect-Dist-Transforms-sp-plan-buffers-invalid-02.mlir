
func.func @misaligned(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 128 : i64} {
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena offset 32 is not a multiple of 64 bytes}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 32>} : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

