
// A qkv_split of a whole value stays whole (all heads); the attention takes
// this rank's heads of q, k and v (local slices).
// TP-LABEL: func.func @whole_qkv
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x24xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[Q:[a-z0-9_]+]], %[[K:[a-z0-9_]+]], %[[V:[a-z0-9_]+]] = tfm.qkv_split %[[X]] packing blocks heads 4 kv_heads 4 head_dim 2 : tensor<4x2x24xf32> -> tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>
// TP-NEXT: %[[QS:[0-9]+]] = dist.local_slice %[[Q]] on @mesh["tp"] dim 2 : tensor<4x2x8xf32> -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[KS:[0-9]+]] = dist.local_slice %[[K]] on @mesh["tp"] dim 2
// TP-NEXT: %[[VS:[0-9]+]] = dist.local_slice %[[V]] on @mesh["tp"] dim 2
// TP-NEXT: %[[A:[0-9]+]] = tfm.attention %[[QS]], %[[KS]], %[[VS]] heads 2 kv_heads 2 head_dim 2 {causal}
// TP-NEXT: dist.all_gather %[[A]] on @mesh["tp"] dim 2
// TP-NEXT: return
// SP-LABEL: func.func @whole_qkv
// SP-NEXT: tfm.qkv_split %{{[a-z0-9]+}} packing blocks heads 4 kv_heads 4 head_dim 2 : tensor<4x2x24xf32> ->
// TP4-LABEL: func.func @whole_qkv
// TP4: tfm.attention %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} heads 1 kv_heads 1 head_dim 2
func.func @whole_qkv(%qkv: tensor<4x2x24xf32>) -> tensor<4x2x8xf32> {
  %q, %k, %v = tfm.qkv_split %qkv packing blocks heads 4 kv_heads 4 head_dim 2 : tensor<4x2x24xf32> -> tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>
  %a = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 2 {causal} : tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32> -> tensor<4x2x8xf32>
  return %a : tensor<4x2x8xf32>
}

