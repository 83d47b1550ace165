// RUN: sp-opt %s -tfm-autodiff | FileCheck %s
// RUN: sp-opt %s -tfm-autodiff -sp-verify -o /dev/null

// tfm-autodiff tags every gradient contribution to a parameter read with
// the parameter and its use index (`tfm.contributes`, one entry per result)
// and records the uses per parameter (`tfm.grad_uses`): sp-verify proves
// from them that each reaches the parameter's gradient exactly once.
// @w is read by two GEMMs (two contributions, added); @b is added to itself,
// so the one bias gradient is delivered to both uses: the second is a copy
// (tfm.scale by 1), its own contribution.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: attributes {tfm.grad_uses = {b = 2 : i64, emb = 1 : i64, w = 2 : i64}, tfm.train_step}
// CHECK: tfm.fill 1.000000e+00 {tfm.backward_begins}
// CHECK: %[[DB:.*]] = tfm.bias_grad %{{.*}} {tfm.contributes = ["b#0"]}
// CHECK: %[[DW0:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} {tfm.contributes = ["w#0"]}
// CHECK: %[[DW1:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} {tfm.contributes = ["w#1"]}
// CHECK: %[[DE:.*]] = tfm.embedding_grad %{{.*}}, %{{.*}} {tfm.contributes = ["emb#0"]}
// CHECK: %[[DB1:.*]] = tfm.scale %[[DB]] by 1.000000e+00 {tfm.contributes = ["b#1"]}
// CHECK: %[[GW:.*]] = tfm.add %[[DW0]], %[[DW1]]
// CHECK: %[[GB:.*]] = tfm.add %[[DB]], %[[DB1]]
// CHECK: return %{{.*}}, %[[DE]], %[[GW]], %[[GB]]
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @b : tensor<8xf32> init zeros
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  %w = tfm.get_param @w : tensor<8x8xf32>
  %h = tfm.linear %x, %w : (tensor<4x1x8xf32>, tensor<8x8xf32>) -> tensor<4x1x8xf32>
  %o = tfm.linear %h, %w : (tensor<4x1x8xf32>, tensor<8x8xf32>) -> tensor<4x1x8xf32>
  %b = tfm.get_param @b : tensor<8xf32>
  %bb = tfm.add %b, %b : tensor<8xf32>
  %ob = tfm.bias_add %o, %bb : tensor<4x1x8xf32>, tensor<8xf32>
  %loss = tfm.cross_entropy %ob, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
