// RUN: sp-opt %s -split-input-file -tfm-master-weights -tfm-autodiff | FileCheck %s

// Mixed precision through tfm-master-weights and tfm-autodiff.

// An f16 model with a tied embedding: loss scaling seeds the backward with
// the step's loss_scale hyperparameter (default 2^16); the backward reads
// the weights' f16 copies (parameter reads, not kept activations); each of
// the table's two contributions is converted to f32, then they are summed:
// the gradients the step returns are f32, as the master weights.
// CHECK-LABEL: module attributes {tfm.loss_scaling, tfm.precision = "f16"}
// CHECK: func.func @train_step(%{{.*}}: tensor<4x1xi64>, %{{.*}}: tensor<4x1xi64>) -> (tensor<f32>, tensor<16x8xf32> {tfm.grad_of = @wte}, tensor<8xf32> {tfm.grad_of = @ln.weight}) attributes {tfm.grad_uses = {ln.weight = 1 : i64, wte = 2 : i64}, tfm.train_step}
// CHECK: %[[E:.*]] = tfm.get_param @wte : tensor<16x8xf32>
// CHECK-NEXT: %[[E0:.*]] = tfm.convert %[[E]] : tensor<16x8xf32> -> tensor<16x8xf16>
// CHECK: %[[E1:.*]] = tfm.convert %[[E]] : tensor<16x8xf32> -> tensor<16x8xf16>
// CHECK-NEXT: tfm.linear %{{.*}}, %[[E1]]
// CHECK: %[[LOSS:.*]] = tfm.cross_entropy
// CHECK-NEXT: %loss_scale = tfm.hyperparameter loss_scale default 6.553600e+04
// CHECK-NEXT: %[[SEED:.*]] = tfm.fill 1.000000e+00 times %loss_scale {tfm.backward_begins} : tensor<f32>
// CHECK-NEXT: %[[DL:.*]] = tfm.cross_entropy_grad %{{.*}}, %{{.*}}, %[[SEED]] {{.*}} -> tensor<4x1x16xf16>
// The LM head's backward reads the converted copy E1.
// CHECK-DAG: tfm.linear_grad_input %[[DL]], %[[E1]] : (tensor<4x1x16xf16>, tensor<16x8xf16>) -> tensor<4x1x8xf16>
// CHECK-DAG: %[[DH16:.*]] = tfm.linear_grad_weight %{{.*}}, %[[DL]] : {{.*}} -> tensor<16x8xf16>
// CHECK-DAG: %[[DH:.*]] = tfm.convert %[[DH16]] {tfm.contributes = ["wte#0"]} : tensor<16x8xf16> -> tensor<16x8xf32>
// CHECK-DAG: %[[DW16:.*]] = tfm.rms_norm_grad
// CHECK-DAG: %[[DE16:.*]] = tfm.embedding_grad {{.*}} -> tensor<16x8xf16>
// CHECK-DAG: %[[DE:.*]] = tfm.convert %[[DE16]] {tfm.contributes = ["wte#1"]} : tensor<16x8xf16> -> tensor<16x8xf32>
// CHECK: %[[SUM:.*]] = tfm.add %{{.*}}, %{{.*}} : tensor<16x8xf32>
// CHECK-NEXT: return %[[LOSS]], %[[SUM]], %{{.*}} : tensor<f32>, tensor<16x8xf32>, tensor<8xf32>
tfm.param @wte : tensor<16x8xf16> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xf16> init ones
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf16>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf16>) -> tensor<4x1x8xf16>
  %w = tfm.get_param @ln.weight : tensor<8xf16>
  %n = tfm.rms_norm %x, %w eps 1.0e-05 : (tensor<4x1x8xf16>, tensor<8xf16>) -> tensor<4x1x8xf16>
  %logits = tfm.linear %n, %e : (tensor<4x1x8xf16>, tensor<16x8xf16>) -> tensor<4x1x16xf16>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x1x16xf16>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// bf16 with sequence parallelism: the norm weight, replicated but applied to
// sequence shards, gets a partial bf16 gradient; its conversion to f32 stays
// partial (sp-sync-grads reduces it in f32). bf16 has no loss scaling: the
// seed is 1.
// CHECK-LABEL: module attributes {tfm.precision = "bf16"}
// CHECK: func.func @train_step({{.*}}) -> (tensor<f32>, tensor<8xf32, #dist.layout<@mesh, tp = P>> {tfm.grad_of = @norm}, tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> {tfm.grad_of = @emb})
// CHECK-NOT: loss_scale
// CHECK: tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK: %{{.*}}, %[[DW16:.*]] = tfm.rms_norm_grad {{.*}} -> (tensor<2x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>)
// CHECK-NEXT: %[[DW:.*]] = tfm.convert %[[DW16]] {tfm.contributes = ["norm#0"]} : tensor<8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<8xf32, #dist.layout<@mesh, tp = P>>
// CHECK: return %{{.*}}, %[[DW]], %{{.*}} : tensor<f32>, tensor<8xf32, #dist.layout<@mesh, tp = P>>, tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
dist.mesh @mesh ["tp" = 2]
tfm.param @norm : tensor<8xbf16> init ones
tfm.param @emb : tensor<32x8xbf16, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %x0 = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xbf16, #dist.layout<@mesh, tp = P>>
  %x = dist.reduce_scatter %x0 on @mesh["tp"] dim 0 : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %w = tfm.get_param @norm : tensor<8xbf16>
  %n = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<2x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> tensor<2x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %l = dist.all_gather %n on @mesh["tp"] dim 0 : tensor<2x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xbf16>
  %loss = tfm.cross_entropy %l, %labels ignore_index -100 : (tensor<4x1x8xbf16>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Loss scaling asked for by the module alone (an f32 step): the seed reads
// the loss scale, nothing is converted.
// CHECK-LABEL: module attributes {tfm.loss_scaling}
// CHECK: %loss_scale = tfm.hyperparameter loss_scale default 6.553600e+04
// CHECK-NEXT: tfm.fill 1.000000e+00 times %loss_scale {tfm.backward_begins} : tensor<f32>
// CHECK-NOT: tfm.convert
// CHECK: return
module attributes {tfm.loss_scaling} {
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x8xf32>) -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
}
