
// A value read after its bytes were handed to another: the kept value %a
// is still read by the add.
func.func @clobbered(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 256 : i64, dist.arena_max_live = 384 : i64} {
  // expected-note @+1 {{the other value is defined here}}
  %a = tfm.silu %x {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %b = tfm.silu %x {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  // expected-error @+1 {{result #0 of 'tfm.silu' at arena bytes [0, 128) overlaps result #0 of 'tfm.silu' at [0, 128), which is still live}}
  %c = tfm.silu %b {dist.arena_offsets = array<i64: 0>} : tensor<4x8xf32>
  %d = tfm.add %a, %c {dist.arena_offsets = array<i64: 128>} : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

