
// A value kept for a late use (an activation saved for the backward) keeps
// its bytes; the short-lived ones share the rest.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: attributes {dist.arena_bytes = 384 : i64, dist.arena_max_live = 384 : i64}
// CHECK: %[[A:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 128>}
// CHECK: %[[C:.*]] = tfm.silu %[[B]] {dist.arena_offsets = array<i64: 256>}
// CHECK: tfm.add %[[A]], %[[C]] {dist.arena_offsets = array<i64: 128>}
func.func @kept(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %b = tfm.silu %x : tensor<4x8xf32>
  %c = tfm.silu %b : tensor<4x8xf32>
  %d = tfm.add %a, %c : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

