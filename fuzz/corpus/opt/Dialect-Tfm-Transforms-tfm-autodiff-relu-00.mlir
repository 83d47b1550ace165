// RUN: sp-opt %s -tfm-autodiff | FileCheck %s

// tfm.relu's backward: tfm.relu_grad of the result's gradient and the saved
// input, in the input's layout (here the feature shard of a column-parallel
// GEMM on 2 ranks, as in a tensor-parallel MLP).
dist.mesh @mesh ["tp" = 2]
tfm.param @up : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @emb : tensor<32x8xf32> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> {tfm.grad_of = @up},
// CHECK-SAME: tensor<32x8xf32> {tfm.grad_of = @emb})
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<32x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<32x8xf32>) -> tensor<4x1x8xf32>
  %wu = tfm.get_param @up : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %h = tfm.linear %x, %wu : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %a = tfm.relu %h : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %l = dist.all_gather %a on @mesh["tp"] dim 2 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x16xf32>
  %loss = tfm.cross_entropy %l, %labels ignore_index -100 : (tensor<4x1x16xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
// CHECK: %[[H:.*]] = tfm.linear
// CHECK: tfm.relu %[[H]] : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK: tfm.fill 1.000000e+00 {tfm.backward_begins}
// CHECK: %[[DL:.*]] = tfm.cross_entropy_grad
// CHECK: %[[DA:.*]] = dist.local_slice %[[DL]] on @mesh["tp"] dim 2 : tensor<4x1x16xf32> -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK: %[[DH:.*]] = tfm.relu_grad %[[DA]], %[[H]] : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK: tfm.linear_grad_input %[[DH]], %{{.*}} : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
// CHECK: tfm.linear_grad_weight %{{.*}}, %[[DH]]
// CHECK-NOT: tfm.relu_grad
