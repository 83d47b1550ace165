// RUN: sp-opt %s -tfm-autodiff | FileCheck %s

// A forward split into two pipeline stages (as sp-pipeline leaves it): one
// @train_step_stage<k> per stage, with its stage attributes, its own use
// counts and the gradients of the parameters it reads (the tied @wte on
// both). The backward of each `send offset 1` is a `recv offset 1` of the
// operand's gradient, at its reverse position: stage 0's backward starts
// with them, in the reverse order of the sends. The backward of each
// `recv offset -1` is a `send offset -1` of the result's gradient, zeros for
// %z, which has none, so every send keeps its recv: stage 1 sends dz, dy0,
// dx, the order in which stage 0 receives them.

dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @layers.0.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.1.w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @fwd_stage0(%ids: tensor<4x2xi64> {tfm.name = "input_ids"}, %labels: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %w0 = tfm.get_param @layers.0.w : tensor<8x8xf32>
  %y0 = tfm.linear %x, %w0 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %z = tfm.gelu %y0 approximate tanh : tensor<4x2x8xf32>
  dist.send %x on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
  dist.send %y0 on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
  dist.send %z on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
  %zero = tfm.fill 0.000000e+00 : tensor<f32>
  return %zero : tensor<f32>
}
func.func @fwd_stage1(%ids: tensor<4x2xi64> {tfm.name = "input_ids"}, %labels: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
  %y0 = dist.recv on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
  %z = dist.recv on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
  %w1 = tfm.get_param @layers.1.w : tensor<8x8xf32>
  %l1 = tfm.linear %y0, %w1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %s = tfm.add %l1, %x : tensor<4x2x8xf32>
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %logits = tfm.linear %s, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @train_step_stage0(%arg0: tensor<4x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<4x2xi64> {tfm.name = "labels"}) -> (tensor<f32>, tensor<16x8xf32> {tfm.grad_of = @wte}, tensor<8x8xf32> {tfm.grad_of = @layers.0.w}) attributes {tfm.grad_uses = {layers.0.w = 1 : i64, wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
// CHECK:         %[[X:.*]] = tfm.embedding
// CHECK:         %[[Y0:.*]] = tfm.linear %[[X]]
// CHECK-NEXT:    %[[Z:.*]] = tfm.gelu %[[Y0]]
// CHECK-NEXT:    dist.send %[[X]] on @mesh["pp"] offset 1
// CHECK-NEXT:    dist.send %[[Y0]] on @mesh["pp"] offset 1
// CHECK-NEXT:    dist.send %[[Z]] on @mesh["pp"] offset 1
// CHECK-NEXT:    %[[ZERO:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// CHECK-NEXT:    tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK-NEXT:    %[[DZ:.*]] = dist.recv on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[DY0:.*]] = dist.recv on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[DX:.*]] = dist.recv on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu_grad %[[DZ]], %[[Y0]]
// CHECK-NEXT:    tfm.add %[[DY0]], %[[G]]
// CHECK:         tfm.add %[[DX]],
// CHECK-NEXT:    %[[DWTE:.*]] = tfm.embedding_grad %arg0, {{.*}} {tfm.contributes = ["wte#0"]}
// CHECK-NEXT:    return %[[ZERO]], %[[DWTE]], %{{.*}} :

// CHECK-LABEL: func.func @train_step_stage1(%arg0: tensor<4x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<4x2xi64> {tfm.name = "labels"}) -> (tensor<f32>, tensor<16x8xf32> {tfm.grad_of = @wte}, tensor<8x8xf32> {tfm.grad_of = @layers.1.w}) attributes {tfm.grad_uses = {layers.1.w = 1 : i64, wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
// CHECK-NEXT:    %[[RX:.*]] = dist.recv on @mesh["pp"] offset -1
// CHECK-NEXT:    %[[RY0:.*]] = dist.recv on @mesh["pp"] offset -1
// CHECK-NEXT:    dist.recv on @mesh["pp"] offset -1
// CHECK:         %[[LOSS:.*]] = tfm.cross_entropy
// CHECK-NEXT:    tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK:         %[[DS:.*]] = tfm.linear_grad_input %{{.*}}, %{{.*}} : (tensor<4x2x16xf32>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
// CHECK:         %[[DRY0:.*]] = tfm.linear_grad_input %[[DS]],
// CHECK-NEXT:    tfm.linear_grad_weight %[[RY0]], %[[DS]]
// CHECK-NEXT:    %[[ZEROS:.*]] = tfm.fill 0.000000e+00 : tensor<4x2x8xf32>
// CHECK-NEXT:    dist.send %[[ZEROS]] on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
// CHECK-NEXT:    dist.send %[[DRY0]] on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
// CHECK-NEXT:    dist.send %[[DS]] on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
// CHECK-NEXT:    return %[[LOSS]],
// CHECK-NOT:   func.func
