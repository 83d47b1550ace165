
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
// TP-NEXT: %[[A:[0-9]+]] = tfm.attention %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 1 head_dim 2 {causal} : tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x2x2xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
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
// TP4-NEXT: %[[A:[0-9]+]] = tfm.attention %[[Q]], %[[KS]], %[[VS]] heads 1 kv_heads 1 head_dim 2 {causal}
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
