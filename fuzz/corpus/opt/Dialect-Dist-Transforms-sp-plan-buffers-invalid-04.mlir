
// An op added after planning has no offset.
func.func @unplanned(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
    attributes {dist.arena_bytes = 128 : i64, dist.arena_max_live = 128 : i64} {
  // expected-error @+1 {{'tfm.silu' op needs 'dist.arena_offsets' with 1 offset(s): the function has an arena plan}}
  %a = tfm.silu %x : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

