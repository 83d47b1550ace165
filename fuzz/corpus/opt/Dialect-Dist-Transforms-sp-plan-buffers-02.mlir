
// Offsets are multiples of 64 bytes; the arena ends at the last byte used,
// and the lower bound counts bytes, not slots. Results that are returned
// (or never read) still get their own bytes.
// CHECK-LABEL: func.func @aligned
// CHECK-SAME: attributes {dist.arena_bytes = 88 : i64, dist.arena_max_live = 48 : i64}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 64>}
func.func @aligned(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tfm.silu %x : tensor<2x3xf32>
  %b = tfm.silu %a : tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}

