// RUN: sp-opt %s -split-input-file -sp-partition="tp=1 dp=2" | FileCheck %s --check-prefix=DP
// RUN: sp-opt %s -split-input-file -sp-partition="tp=2 dp=2 sequence-parallel=true" | FileCheck %s --check-prefix=MESH

// sp-partition with data parallelism, on hand-written single-device IR: a
// norm, the LM head and the loss.
//
// dp=2 alone: the batch (dimension 1) of the inputs and of every activation
// is split over dp, parameters are not. The loss is the one-device mean
// whatever labels are ignored where: each replica counts its non-ignored
// labels (tfm.label_count), the counts are summed over dp, each replica's
// cross-entropy divides its sum by that global count (partial over dp) and
// the shares are summed (all_reduce sum).
// DP-LABEL: func.func @norm_head_loss
// DP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, %[[L:[a-z0-9]+]]: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32>
// DP-NEXT: %[[LW:[0-9]+]] = tfm.get_param @ln.weight : tensor<8xf32>
// DP-NEXT: %[[N:[0-9]+]] = tfm.rms_norm %[[X]], %[[LW]]
// DP-SAME: -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
// DP-NEXT: %[[W:[0-9]+]] = tfm.get_param @head.weight : tensor<16x8xf32>
// DP-NEXT: %[[Z:[0-9]+]] = tfm.linear %[[N]], %[[W]] : (tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x8xf32>) -> tensor<4x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
// DP-NEXT: %[[C:[0-9]+]] = tfm.label_count %[[L]] ignore_index -100 : tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
// DP-NEXT: %[[N:[0-9]+]] = dist.all_reduce %[[C]] on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// DP-NEXT: %[[LOSS:[0-9]+]] = tfm.cross_entropy %[[Z]], %[[L]] count %[[N]] ignore_index -100
// DP-SAME: -> tensor<f32, #dist.layout<@mesh, dp = P>>
// DP-NEXT: %[[MEAN:[0-9]+]] = dist.all_reduce %[[LOSS]] on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// DP-NEXT: return %[[MEAN]] : tensor<f32>
//
// tp=2 dp=2 with sequence parallelism: both entries in one layout, the
// sequence split over tp inside each dp replica's batch shard; the
// collectives over tp keep the dp split, and the vocab-parallel
// cross-entropy divides by the global label count (summed over dp, not tp:
// the tp ranks hold the same labels); the shares are summed over dp.
// MESH: dist.mesh @mesh ["dp" = 2, "tp" = 2]
// MESH-LABEL: func.func @norm_head_loss
// MESH-SAME: (%[[X:[a-z0-9]+]]: tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, %[[L:[a-z0-9]+]]: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32>
// MESH-NEXT: %[[XS:[0-9]+]] = dist.local_slice %[[X]] on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
// MESH: %[[N:[0-9]+]] = tfm.rms_norm %[[XS]]
// MESH-SAME: -> tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
// MESH-NEXT: %[[G:[0-9]+]] = dist.all_gather %[[N]] on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
// MESH-NEXT: %[[W:[0-9]+]] = tfm.get_param @head.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// MESH-NEXT: %[[Z:[0-9]+]] = tfm.linear %[[G]], %[[W]]
// MESH-SAME: -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
// MESH-NEXT: %[[C:[0-9]+]] = tfm.label_count %{{.*}} -> tensor<f32, #dist.layout<@mesh, dp = P>>
// MESH-NEXT: %[[N:[0-9]+]] = dist.all_reduce %[[C]] on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// MESH-NEXT: tfm.logits_max %[[Z]]
// MESH-NEXT: dist.all_reduce %{{[0-9]+}} on @mesh["tp"] max : tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>
// MESH: %[[LOSS:[0-9]+]] = tfm.cross_entropy_from_stats {{.*}} count %[[N]]
// MESH-SAME: -> tensor<f32, #dist.layout<@mesh, dp = P>>
// MESH-NEXT: %[[MEAN:[0-9]+]] = dist.all_reduce %[[LOSS]] on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// MESH-NEXT: return %[[MEAN]] : tensor<f32>
tfm.param @ln.weight : tensor<8xf32> init ones
tfm.param @head.weight : tensor<16x8xf32> init normal(2.000000e-02)
func.func @norm_head_loss(%x: tensor<4x2x8xf32>, %labels: tensor<4x2xi64>) -> tensor<f32> {
  %lw = tfm.get_param @ln.weight : tensor<8xf32>
  %n = tfm.rms_norm %x, %lw eps 1.000000e-06 : (tensor<4x2x8xf32>, tensor<8xf32>) -> tensor<4x2x8xf32>
  %w = tfm.get_param @head.weight : tensor<16x8xf32>
  %logits = tfm.linear %n, %w : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %l = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
