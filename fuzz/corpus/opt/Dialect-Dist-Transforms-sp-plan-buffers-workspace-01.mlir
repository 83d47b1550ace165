
// A workspace reused across ops: each coalesced all-reduce packs its two
// operands (256 bytes) at offset 0, which the adds take over in between;
// the results are written in place over the operands.
// CHECK-LABEL: func.func @reused
// CHECK-SAME: attributes {dist.arena_bytes = 512 : i64, dist.arena_max_live = 512 : i64}
// CHECK: dist.all_reduce_coalesced {{.*}} {dist.arena_offsets = array<i64: 256, 384>, dist.workspace_offset = 0 : i64}
// CHECK: tfm.add {{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: dist.all_reduce_coalesced {{.*}} {dist.arena_offsets = array<i64: 256, 384>, dist.workspace_offset = 0 : i64}
// CHECK: tfm.add {{.*}} {dist.arena_offsets = array<i64: 0>}
dist.mesh @mesh ["tp" = 2]
func.func @reused(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.silu %x : tensor<4x8xf32>
  %b = tfm.silu %x : tensor<4x8xf32>
  %r:2 = dist.all_reduce_coalesced %a, %b on @mesh["tp"] sum : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %c = tfm.add %r#0, %r#1 : tensor<4x8xf32>
  %d = tfm.silu %c : tensor<4x8xf32>
  %e = tfm.silu %c : tensor<4x8xf32>
  %s:2 = dist.all_reduce_coalesced %d, %e on @mesh["tp"] sum : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %f = tfm.add %s#0, %s#1 : tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

