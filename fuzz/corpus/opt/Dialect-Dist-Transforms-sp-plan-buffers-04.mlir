
// In place: an all-reduce or a scaling writes over an operand that dies at
// it (gradients reduced over dp, scaled by 1/dp), so the pair is one
// buffer; a scaled value still read later keeps its own bytes. The bound
// counts each buffer once.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: attributes {dist.arena_bytes = 384 : i64, dist.arena_max_live = 384 : i64}
// CHECK: %[[A:.*]] = tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[R:.*]] = dist.all_reduce %[[A]] on @mesh["dp"] sum {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = tfm.scale %[[R]] by 5.000000e-01 {dist.arena_offsets = array<i64: 0>}
// CHECK: %[[C:.*]] = tfm.scale %[[B]] by 2.000000e+00 {dist.arena_offsets = array<i64: 128>}
// CHECK: tfm.add %[[C]], %[[B]] {dist.arena_offsets = array<i64: 256>}
dist.mesh @mesh ["dp" = 2]
func.func @in_place(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %r = dist.all_reduce %a on @mesh["dp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = tfm.scale %r by 0.5 : tensor<4x8xf32>
  %c = tfm.scale %b by 2.0 : tensor<4x8xf32>
  %d = tfm.add %c, %b : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
