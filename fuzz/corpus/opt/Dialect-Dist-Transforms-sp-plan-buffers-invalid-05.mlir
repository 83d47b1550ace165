
// Only kernels that work in place may write over their own operand.
func.func @not_in_place(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 128 : i64, dist.arena_max_live = 128 : i64} {
  // expected-note @+1 {{the other value is defined here}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena bytes [0, 128) overlaps result #0 of 'tfm.silu' at [0, 128), which is still live}}
  %b = tfm.silu %a {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

