
// The LM head and the loss: the head is column-parallel over the
// vocabulary and the cross-entropy vocab-parallel: the max, the sum of
// exponentials and the label's logit are each all-reduced over tp.
// TP-LABEL: func.func @head_loss
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>, %[[L:[a-z0-9]+]]: tensor<4x2xi64>) -> tensor<f32>
// TP-NEXT: %[[W:[0-9]+]] = tfm.get_param @head.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[Z:[0-9]+]] = tfm.linear %[[X]], %[[W]] : (tensor<4x2x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[M:[0-9]+]] = tfm.logits_max %[[Z]] : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x2xf32, #dist.layout<@mesh, tp = P>>
// TP-NEXT: %[[MR:[0-9]+]] = dist.all_reduce %[[M]] on @mesh["tp"] max : tensor<4x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2xf32>
// TP-NEXT: %[[S:[0-9]+]] = tfm.logits_sumexp %[[Z]], %[[MR]] :
// TP-NEXT: %[[SR:[0-9]+]] = dist.all_reduce %[[S]] on @mesh["tp"] sum : tensor<4x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2xf32>
// TP-NEXT: %[[T:[0-9]+]] = tfm.label_logit %[[Z]], %[[L]] ignore_index -100 :
// TP-NEXT: %[[TR:[0-9]+]] = dist.all_reduce %[[T]] on @mesh["tp"] sum : tensor<4x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2xf32>
// TP-NEXT: %[[LOSS:[0-9]+]] = tfm.cross_entropy_from_stats %[[MR]], %[[SR]], %[[TR]], %[[L]] ignore_index -100 :
// TP-SAME: -> tensor<f32>
// TP-NEXT: return %[[LOSS]] : tensor<f32>
// SP-LABEL: func.func @head_loss
// SP: tfm.logits_max
// SP-NEXT: dist.all_reduce %{{[0-9]+}} on @mesh["tp"] max
// SP: tfm.cross_entropy_from_stats
tfm.param @head.weight : tensor<16x8xf32> init normal(2.000000e-02)
func.func @head_loss(%x: tensor<4x2x8xf32>, %labels: tensor<4x2xi64>) -> tensor<f32> {
  %w = tfm.get_param @head.weight : tensor<16x8xf32>
  %logits = tfm.linear %x, %w : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %l = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

