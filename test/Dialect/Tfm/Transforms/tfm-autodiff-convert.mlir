// RUN: sp-opt %s -tfm-autodiff | FileCheck %s

// tfm.convert's backward converts the gradient back to the operand's element
// type, keeping its layout: an f32 master weight (here the vocabulary-parallel
// embedding table, split over tp) read as bf16 gets an f32 gradient split as
// the weight is.
dist.mesh @mesh ["tp" = 2]
tfm.param @emb : tensor<32x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: -> (tensor<f32>, tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> {tfm.grad_of = @emb})
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %e16 = tfm.convert %e : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %x0 = tfm.embedding %ids, %e16 : (tensor<4x1xi64>, tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xbf16, #dist.layout<@mesh, tp = P>>
  %x = dist.all_reduce %x0 on @mesh["tp"] sum : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xbf16>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xbf16>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
// The forward's convert, then the backward.
// CHECK: %[[E:.*]] = tfm.get_param @emb : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: tfm.convert %[[E]] : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK: tfm.fill 1.000000e+00 {tfm.backward_begins}
// The table's bf16 gradient (this rank's rows), converted to f32.
// CHECK: %[[DE16:.*]] = tfm.embedding_grad {{.*}} -> tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[DE:.*]] = tfm.convert %[[DE16]] {tfm.contributes = ["emb#0"]} : tensor<16x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %{{.*}}, %[[DE]] : tensor<f32>, tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
