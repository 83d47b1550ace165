// RUN: sp-opt %s -split-input-file -tfm-autodiff | FileCheck %s

// A sequence-parallel MLP block on 2 ranks. The backward transposes every
// collective (all_gather <-> reduce_scatter), gathers the column GEMM's
// input again for the weight gradient, and the RMSNorm weight, replicated
// but applied to sequence shards, gets a PARTIAL gradient (GPT-NeoX #1257):
// sp-sync-grads must reduce it.
dist.mesh @mesh ["tp" = 2]
tfm.param @norm : tensor<8xf32> init ones
tfm.param @up : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @down : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @emb : tensor<32x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: -> (tensor<f32>,
// CHECK-SAME: tensor<8xf32, #dist.layout<@mesh, tp = P>> {tfm.grad_of = @norm},
// CHECK-SAME: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> {tfm.grad_of = @up},
// CHECK-SAME: tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> {tfm.grad_of = @down},
// CHECK-SAME: tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> {tfm.grad_of = @emb})
// CHECK-NOT: func.func @forward
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %x0 = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %x = dist.reduce_scatter %x0 on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %w = tfm.get_param @norm : tensor<8xf32>
  %n = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %g = dist.all_gather %n on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %wu = tfm.get_param @up : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %h = tfm.linear %g, %wu : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %a = tfm.silu %h : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %wd = tfm.get_param @down : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %wd : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.add %x, %r : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %l = dist.all_gather %y on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %l, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
// The forward, then the seed.
// CHECK: %[[LOSS:.*]] = tfm.cross_entropy
// CHECK: %[[ONE:.*]] = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK: %[[DL:.*]] = tfm.cross_entropy_grad %{{.*}}, %{{.*}}, %[[ONE]] ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>, tensor<f32>) -> tensor<4x1x8xf32>
// all_gather's transpose: the replicated gradient is sliced (no traffic).
// CHECK: %[[DY:.*]] = dist.local_slice %[[DL]] on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// reduce_scatter's transpose: all_gather.
// CHECK: %[[DP:.*]] = dist.all_gather %[[DY]] on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
// Row-parallel backward: input gradient split on features, weight gradient split like the weight.
// CHECK: %[[DA:.*]] = tfm.linear_grad_input %[[DP]], %{{.*}} : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK: tfm.linear_grad_weight %{{.*}}, %[[DP]] {tfm.contributes = ["down#0"]} : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x1x8xf32>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK: %[[DH:.*]] = tfm.silu_grad %[[DA]], %{{.*}} : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// Column-parallel backward: a partial input gradient ...
// CHECK: %[[DG:.*]] = tfm.linear_grad_input %[[DH]], %{{.*}} : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
// ... and the weight gradient from the input gathered again from its shard.
// CHECK: %[[AGAIN:.*]] = dist.all_gather %{{.*}} on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
// CHECK: tfm.linear_grad_weight %[[AGAIN]], %[[DH]] {tfm.contributes = ["up#0"]} : (tensor<4x1x8xf32>, tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// The all_gather's transpose reduce-scatters the partial gradient.
// CHECK: %[[DN:.*]] = dist.reduce_scatter %[[DG]] on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK: %[[DX:.*]], %[[DW:.*]] = tfm.rms_norm_grad %[[DN]], %{{.*}}, %{{.*}} eps 9.9999999999999995E-7 {tfm.contributes = [unit, "norm#0"]} : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>)
// The residual's two gradients add, then the embedding's reduce_scatter transposes.
// CHECK: %[[DSUM:.*]] = tfm.add
// CHECK: %[[DE:.*]] = dist.all_gather %[[DSUM]] on @mesh["tp"] dim 0
// CHECK: tfm.embedding_grad %{{.*}}, %[[DE]] {tfm.contributes = ["emb#0"]} : (tensor<4x1xi64>, tensor<4x1x8xf32>) -> tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK: return %[[LOSS]], %[[DW]],

// -----

// Data parallelism: the loss's mean over replicas scales the gradient, and
// every parameter gradient is partial over dp (a sum over this replica's
// tokens).
dist.mesh @mesh ["dp" = 2, "tp" = 1]
tfm.param @w : tensor<4x8xf32> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w}
func.func @forward(%ids: tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %x = tfm.embedding %ids, %w : (tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<3x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
  %logits = tfm.linear %x, %w : (tensor<3x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<3x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %l = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<3x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %m = dist.all_reduce %l on @mesh["dp"] mean : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  return %m : tensor<f32>
}
// CHECK: %[[ONE:.*]] = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK: %[[HALF:.*]] = tfm.scale %[[ONE]] by 5.000000e-01 : tensor<f32>
// CHECK: tfm.cross_entropy_grad %{{.*}}, %{{.*}}, %[[HALF]]
// The tied read: the two gradients of @w are summed.
// CHECK: %[[G1:.*]] = tfm.linear_grad_weight {{.*}} -> tensor<4x8xf32, #dist.layout<@mesh, dp = P>>
// CHECK: %[[G2:.*]] = tfm.embedding_grad {{.*}} -> tensor<4x8xf32, #dist.layout<@mesh, dp = P>>
// CHECK: %[[G:.*]] = tfm.add %[[G1]], %[[G2]] : tensor<4x8xf32, #dist.layout<@mesh, dp = P>>
// CHECK: return %{{.*}}, %[[G]]

// -----

// The loss as sp-partition writes it over dp: each replica's sum divided by
// the global label count (tfm.label_count, all-reduced), the shares summed.
// The all_reduce sum transposes to the identity (no scale), the count gets
// no gradient, and the backward divides by the forward's count.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
tfm.param @w : tensor<4x8xf32> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
func.func @forward(%ids: tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %x = tfm.embedding %ids, %w : (tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<3x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
  %logits = tfm.linear %x, %w : (tensor<3x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<3x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %c = tfm.label_count %labels ignore_index -100 : tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %n = dist.all_reduce %c on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %l = tfm.cross_entropy %logits, %labels count %n ignore_index -100 : (tensor<3x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %m = dist.all_reduce %l on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  return %m : tensor<f32>
}
// CHECK: %[[C:.*]] = tfm.label_count
// CHECK-NEXT: %[[N:.*]] = dist.all_reduce %[[C]] on @mesh["dp"] sum
// CHECK: %[[ONE:.*]] = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK-NOT: tfm.scale
// CHECK-NEXT: tfm.cross_entropy_grad %{{.*}}, %{{.*}}, %[[ONE]] count %[[N]] ignore_index -100
// CHECK-NOT: tfm.label_count
// CHECK: return
