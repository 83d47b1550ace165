// RUN: sp-opt %s -split-input-file -sp-partition="tp=2" | FileCheck %s --check-prefix=TP
// RUN: sp-opt %s -split-input-file -sp-partition="tp=2 sequence-parallel=true" | FileCheck %s --check-prefix=SP
// RUN: sp-opt %s -split-input-file -sp-partition="tp=4" | FileCheck %s --check-prefix=TP4

// sp-partition's rewrite of the embedding, qkv_split and attention ops
// (their PartitionOpInterface models), on hand-written single-device IR.

// Token embedding: the table is vocab-parallel (S(0)) and its lookup with
// every token id is partial, all-reduced (TP) or reduce-scattered along the
// sequence (SP). Position embedding: the table stays whole and is looked up
// with this rank's positions (all of them under TP, the rank's sequence
// block under SP).
// TP-LABEL: func.func @embeddings
// TP-SAME: (%[[IDS:[a-z0-9]+]]: tensor<4x2xi64>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[WTE:[0-9]+]] = tfm.get_param @wte : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[TOK:[0-9]+]] = tfm.embedding %[[IDS]], %[[WTE]] : (tensor<4x2xi64>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
// TP-NEXT: %[[TOKR:[0-9]+]] = dist.all_reduce %[[TOK]] on @mesh["tp"] sum : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x8xf32>
// TP-NEXT: %[[POS:[0-9]+]] = tfm.position_ids : tensor<4x2xi64>
// TP-NEXT: %[[WPE:[0-9]+]] = tfm.get_param @wpe : tensor<4x8xf32>
// TP-NEXT: %[[PE:[0-9]+]] = tfm.embedding %[[POS]], %[[WPE]] : (tensor<4x2xi64>, tensor<4x8xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[H:[0-9]+]] = tfm.add %[[TOKR]], %[[PE]] : tensor<4x2x8xf32>
// TP-NEXT: return %[[H]] : tensor<4x2x8xf32>
// SP-LABEL: func.func @embeddings
// SP-SAME: (%[[IDS:[a-z0-9]+]]: tensor<4x2xi64>) -> tensor<4x2x8xf32>
// SP-NEXT: %[[WTE:[0-9]+]] = tfm.get_param @wte : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[TOK:[0-9]+]] = tfm.embedding %[[IDS]], %[[WTE]] : (tensor<4x2xi64>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
// SP-NEXT: %[[TOKS:[0-9]+]] = dist.reduce_scatter %[[TOK]] on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[POS:[0-9]+]] = tfm.position_ids : tensor<2x2xi64, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[WPE:[0-9]+]] = tfm.get_param @wpe : tensor<4x8xf32>
// SP-NEXT: %[[PE:[0-9]+]] = tfm.embedding %[[POS]], %[[WPE]] : (tensor<2x2xi64, #dist.layout<@mesh, tp = S(0)>>, tensor<4x8xf32>) -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[H:[0-9]+]] = tfm.add %[[TOKS]], %[[PE]] : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[HG:[0-9]+]] = dist.all_gather %[[H]] on @mesh["tp"] dim 0 : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x2x8xf32>
// SP-NEXT: return %[[HG]] : tensor<4x2x8xf32>
// TP4-LABEL: func.func @embeddings
// TP4-NEXT: tfm.get_param @wte : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @wpe : tensor<4x8xf32> init normal(2.000000e-02)
func.func @embeddings(%ids: tensor<4x2xi64>) -> tensor<4x2x8xf32> {
  %wte = tfm.get_param @wte : tensor<16x8xf32>
  %tok = tfm.embedding %ids, %wte : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %wpe = tfm.get_param @wpe : tensor<4x8xf32>
  %pos = tfm.position_ids : tensor<4x2xi64>
  %pe = tfm.embedding %pos, %wpe : (tensor<4x2xi64>, tensor<4x8xf32>) -> tensor<4x2x8xf32>
  %h = tfm.add %tok, %pe : tensor<4x2x8xf32>
  return %h : tensor<4x2x8xf32>
}

// -----

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
// TP-NEXT: %[[A:[a-z0-9_]+]] = tfm.attention %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 2 head_dim 2 {causal} : {{.*}} -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[AG:[0-9]+]] = dist.all_gather %[[A]] on @mesh["tp"] dim 2 : tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x2x8xf32>
// TP-NEXT: return %[[AG]] : tensor<4x2x8xf32>
// SP-LABEL: func.func @fused_qkv
// SP-NEXT: tfm.get_param @c_attn.weight : tensor<8x12xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>
// SP-NEXT: tfm.linear
// SP-NEXT: tfm.qkv_split %{{[0-9]+}} packing blocks heads 2 kv_heads 2 head_dim 2
// SP-NEXT: tfm.attention
// SP-NEXT: dist.all_gather %{{[a-z0-9_]+}} on @mesh["tp"] dim 2
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

// -----

// A qkv_split of a whole value stays whole (all heads); the attention takes
// this rank's heads of q, k and v (local slices).
// TP-LABEL: func.func @whole_qkv
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x24xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[Q:[a-z0-9_]+]], %[[K:[a-z0-9_]+]], %[[V:[a-z0-9_]+]] = tfm.qkv_split %[[X]] packing blocks heads 4 kv_heads 4 head_dim 2 : tensor<4x2x24xf32> -> tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>
// TP-NEXT: %[[QS:[0-9]+]] = dist.local_slice %[[Q]] on @mesh["tp"] dim 2 : tensor<4x2x8xf32> -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[KS:[0-9]+]] = dist.local_slice %[[K]] on @mesh["tp"] dim 2
// TP-NEXT: %[[VS:[0-9]+]] = dist.local_slice %[[V]] on @mesh["tp"] dim 2
// TP-NEXT: %[[A:[a-z0-9_]+]] = tfm.attention %[[QS]], %[[KS]], %[[VS]] heads 2 kv_heads 2 head_dim 2 {causal}
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

// -----

// Grouped-query attention (4 heads, 2 kv heads) with separate projections.
// tp = 2 divides the kv heads: q, k and v projections are all
// column-parallel and every rank attends with 2 heads and 1 kv head. tp = 4
// has more ranks than kv heads: k and v are computed whole, each kv head is
// repeated twice and each rank keeps its one.
// TP-LABEL: func.func @gqa
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[WQ:[0-9]+]] = tfm.get_param @q.weight : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[Q:[0-9]+]] = tfm.linear %[[X]], %[[WQ]] : {{.*}} -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[WK:[0-9]+]] = tfm.get_param @k.weight : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[K:[0-9]+]] = tfm.linear %[[X]], %[[WK]] : {{.*}} -> tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[WV:[0-9]+]] = tfm.get_param @v.weight : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[V:[0-9]+]] = tfm.linear %[[X]], %[[WV]] : {{.*}} -> tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[A:[a-z0-9_]+]] = tfm.attention %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 1 head_dim 2 {causal} : tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: dist.all_gather %[[A]] on @mesh["tp"] dim 2
// TP-NEXT: return
// SP-LABEL: func.func @gqa
// SP: tfm.attention %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} heads 2 kv_heads 1 head_dim 2
// TP4-LABEL: func.func @gqa
// TP4-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
// TP4-NEXT: %[[WQ:[0-9]+]] = tfm.get_param @q.weight : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP4-NEXT: %[[Q:[0-9]+]] = tfm.linear %[[X]], %[[WQ]] : {{.*}} -> tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
// TP4-NEXT: %[[WK:[0-9]+]] = tfm.get_param @k.weight : tensor<4x8xf32>
// TP4-NEXT: %[[K:[0-9]+]] = tfm.linear %[[X]], %[[WK]] : (tensor<4x2x8xf32>, tensor<4x8xf32>) -> tensor<4x2x4xf32>
// TP4-NEXT: %[[WV:[0-9]+]] = tfm.get_param @v.weight : tensor<4x8xf32>
// TP4-NEXT: %[[V:[0-9]+]] = tfm.linear %[[X]], %[[WV]] : (tensor<4x2x8xf32>, tensor<4x8xf32>) -> tensor<4x2x4xf32>
// TP4-NEXT: %[[KR:[0-9]+]] = tfm.repeat_heads %[[K]] heads 2 head_dim 2 factor 2 : tensor<4x2x4xf32> -> tensor<4x2x8xf32>
// TP4-NEXT: %[[KS:[0-9]+]] = dist.local_slice %[[KR]] on @mesh["tp"] dim 2 : tensor<4x2x8xf32> -> tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
// TP4-NEXT: %[[VR:[0-9]+]] = tfm.repeat_heads %[[V]] heads 2 head_dim 2 factor 2 : tensor<4x2x4xf32> -> tensor<4x2x8xf32>
// TP4-NEXT: %[[VS:[0-9]+]] = dist.local_slice %[[VR]] on @mesh["tp"] dim 2 : tensor<4x2x8xf32> -> tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
// TP4-NEXT: %[[A:[a-z0-9_]+]] = tfm.attention %[[Q]], %[[KS]], %[[VS]] heads 1 kv_heads 1 head_dim 2 {causal}
// TP4-NEXT: dist.all_gather %[[A]] on @mesh["tp"] dim 2 : tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x2x8xf32>
// TP4-NEXT: return
tfm.param @q.weight : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @k.weight : tensor<4x8xf32> init normal(2.000000e-02)
tfm.param @v.weight : tensor<4x8xf32> init normal(2.000000e-02)
func.func @gqa(%x: tensor<4x2x8xf32>) -> tensor<4x2x8xf32> {
  %wq = tfm.get_param @q.weight : tensor<8x8xf32>
  %q = tfm.linear %x, %wq : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %wk = tfm.get_param @k.weight : tensor<4x8xf32>
  %k = tfm.linear %x, %wk : (tensor<4x2x8xf32>, tensor<4x8xf32>) -> tensor<4x2x4xf32>
  %wv = tfm.get_param @v.weight : tensor<4x8xf32>
  %v = tfm.linear %x, %wv : (tensor<4x2x8xf32>, tensor<4x8xf32>) -> tensor<4x2x4xf32>
  %a = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 2 {causal} : tensor<4x2x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32> -> tensor<4x2x8xf32>
  return %a : tensor<4x2x8xf32>
}
