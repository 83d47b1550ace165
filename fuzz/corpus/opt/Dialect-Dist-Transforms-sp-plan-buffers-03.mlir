
// An op with several results gets one offset per result; parameters live
// outside the arena.
// CHECK-LABEL: func.func @multi
// CHECK-SAME: attributes {dist.arena_bytes = 768 : i64, dist.arena_max_live = 768 : i64}
// CHECK: tfm.get_param @w : tensor<24x8xf32>{{$}}
// CHECK: tfm.linear {{.*}} {dist.arena_offsets = array<i64: 0>}
// CHECK: tfm.qkv_split {{.*}} {dist.arena_offsets = array<i64: 384, 512, 640>}
// CHECK: tfm.add {{.*}} {dist.arena_offsets = array<i64: 0>}
tfm.param @w : tensor<24x8xf32> init normal(0.02)
func.func @multi(%x: tensor<4x1x8xf32>) -> tensor<4x1x8xf32> {
  %w = tfm.get_param @w : tensor<24x8xf32>
  %h = tfm.linear %x, %w : (tensor<4x1x8xf32>, tensor<24x8xf32>) -> tensor<4x1x24xf32>
  %q, %k, %v = tfm.qkv_split %h packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<4x1x24xf32> -> tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>
  %s = tfm.add %q, %k : tensor<4x1x8xf32>
  %t = tfm.add %s, %v : tensor<4x1x8xf32>
  return %t : tensor<4x1x8xf32>
}

