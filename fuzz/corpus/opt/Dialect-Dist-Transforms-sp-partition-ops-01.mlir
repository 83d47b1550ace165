
// GPT-2's fused q/k/v projection: qkv_split with "blocks" packing makes the
// GEMM column-parallel in 3 blocks (each rank holds its heads of q, of k and
// of v); the split and the attention run on local heads; the result is
// gathered on its features to be returned. Sequence parallelism changes
// nothing here (the input is whole).
// TP-LABEL: func.func @fused_qkv
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[W:[0-9]+]] = tfm.get_param @c_attn.weight : tensor<8x12xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>
// TP-NEXT: %[[QKV:[0-9]+]] = tfm.linear %[[X]], %[[W]] weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x12xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>) -> tensor<4x2x12xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
// TP-NEXT: %[[Q:[a-z0-9_]+]], %[[K:[a-z0-9_]+]], %[[V:[a-z0-9_]+]] = tfm.qkv_split %[[QKV]] packing blocks heads 2 kv_heads 2 head_dim 2 : tensor<4x2x12xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>> -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[A:[0-9]+]] = tfm.attention %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 2 head_dim 2 {causal} : {{.*}} -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[AG:[0-9]+]] = dist.all_gather %[[A]] on @mesh["tp"] dim 2 : tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x2x8xf32>
// TP-NEXT: return %[[AG]] : tensor<4x2x8xf32>
// SP-LABEL: func.func @fused_qkv
// SP-NEXT: tfm.get_param @c_attn.weight : tensor<8x12xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>
// SP-NEXT: tfm.linear
// SP-NEXT: tfm.qkv_split %{{[0-9]+}} packing blocks heads 2 kv_heads 2 head_dim 2
// SP-NEXT: tfm.attention
// SP-NEXT: dist.all_gather %{{[0-9]+}} on @mesh["tp"] dim 2
// SP-NEXT: return
// TP4-LABEL: func.func @fused_qkv
// TP4: tfm.qkv_split %{{[0-9]+}} packing blocks heads 1 kv_heads 1 head_dim 2 : tensor<4x2x6xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
tfm.param @c_attn.weight : tensor<8x24xf32> init normal(2.000000e-02)
func.func @fused_qkv(%x: tensor<4x2x8xf32>) -> tensor<4x2x8xf32> {
  %w = tfm.get_param @c_attn.weight : tensor<8x24xf32>
  %qkv = tfm.linear %x, %w weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x24xf32>) -> tensor<4x2x24xf32>
  %q, %k, %v = tfm.qkv_split %qkv packing blocks heads 4 kv_heads 4 head_dim 2 : tensor<4x2x24xf32> -> tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>
  %a = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 2 {causal} : tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32> -> tensor<4x2x8xf32>
  return %a : tensor<4x2x8xf32>
}

