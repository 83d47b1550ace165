
// Collectives on a strided dimension pack / unpack through a workspace;
// along the first dimension, or with a single coalesced operand, they need
// none and get no offset. all_gather dim 1: the result's 512 bytes;
// all_to_all [2, 8, 8] split 2 concat 1: 512 packed + 512 unpacked.
// CHECK-LABEL: func.func @strided
// CHECK-SAME: attributes {dist.arena_bytes = 2560 : i64, dist.arena_max_live = 2560 : i64}
// CHECK: tfm.silu %{{.*}} {dist.arena_offsets = array<i64: 512>}
// CHECK: dist.all_gather %{{.*}} dim 1 {dist.arena_offsets = array<i64: 1024>, dist.workspace_offset = 0 : i64}
// CHECK: dist.all_gather %{{.*}} dim 0 {dist.arena_offsets = array<i64: 1536>} :
// CHECK: dist.all_to_all {{.*}} {dist.arena_offsets = array<i64: 2048>, dist.workspace_offset = 0 : i64}
// CHECK: dist.all_reduce_coalesced {{.*}} {dist.arena_offsets = array<i64: {{[0-9]+}}>} :
// CHECK: dist.reduce_scatter_coalesced {{.*}} {dist.arena_offsets = array<i64: {{[0-9]+}}>} :
dist.mesh @mesh ["tp" = 2]
func.func @strided(%x: tensor<2x4x8xf32>) -> tensor<4x4x8xf32> {
  %a = tfm.silu %x : tensor<2x4x8xf32>
  %g = dist.all_gather %a on @mesh["tp"] dim 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %h = dist.all_gather %a on @mesh["tp"] dim 0 : tensor<2x4x8xf32> -> tensor<4x4x8xf32>
  %t = dist.all_to_all %g on @mesh["tp"] split 2 concat 1 : tensor<2x8x8xf32> -> tensor<2x16x4xf32>
  %u = dist.all_reduce_coalesced %t on @mesh["tp"] sum : (tensor<2x16x4xf32>) -> (tensor<2x16x4xf32>)
  %v = dist.reduce_scatter_coalesced %u on @mesh["tp"] : (tensor<2x16x4xf32>) -> (tensor<1x16x4xf32>)
  return %h : tensor<4x4x8xf32>
}
