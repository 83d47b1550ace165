
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

