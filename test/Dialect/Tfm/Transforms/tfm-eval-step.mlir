// RUN: sp-opt %s -split-input-file -tfm-eval-step | FileCheck %s
// RUN: sp-opt %s -split-input-file -tfm-eval-step -tfm-autodiff | FileCheck %s --check-prefix=TRAIN

// tfm-eval-step: each tfm.forward gets a copy marked tfm.eval_step with
// dropout off (a tfm.dropout is its input, attention's rate is 0); the
// forward itself is unchanged, and tfm-autodiff then differentiates it alone.

// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: %[[IDS:.*]]: tensor<4x2xi64> {tfm.name = "input_ids"}, %[[LABELS:.*]]: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.eval_step} {
// CHECK-NEXT: %[[E:.*]] = tfm.get_param @wte
// CHECK-NEXT: %[[X:.*]] = tfm.embedding %[[IDS]], %[[E]]
// CHECK-NEXT: %[[A:.*]] = tfm.attention %[[X]], %[[X]], %[[X]] heads 2 kv_heads 2 head_dim 4 {causal, dropout_stream = 2 : i64}
// CHECK-NEXT: %[[S:.*]] = tfm.add %[[A]], %[[X]]
// CHECK-NEXT: %[[L:.*]] = tfm.linear %[[S]], %[[E]]
// CHECK-NEXT: %[[LOSS:.*]] = tfm.cross_entropy %[[L]], %[[LABELS]]
// CHECK-NEXT: return %[[LOSS]] : tensor<f32>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: attributes {tfm.forward}
// CHECK: tfm.dropout {{.*}} rate 1.000000e-01 stream 1
// CHECK: tfm.attention {{.*}} {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 2 : i64}
// TRAIN-LABEL: func.func @eval_step(
// TRAIN-NOT: tfm.dropout
// TRAIN: return
// TRAIN-LABEL: func.func @train_step(
// TRAIN: tfm.dropout
// TRAIN: tfm.attention_grad {{.*}}dropout_rate = 1.000000e-01
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x2xi64> {tfm.name = "input_ids"}, %labels: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %d = tfm.dropout %x rate 0.1 stream 1 : tensor<4x2x8xf32>
  %a = tfm.attention %d, %d, %d heads 2 kv_heads 2 head_dim 4 {causal, dropout_rate = 0.1 : f64, dropout_stream = 2 : i64} : tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32> -> tensor<4x2x8xf32>
  %s = tfm.add %a, %d : tensor<4x2x8xf32>
  %logits = tfm.linear %s, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Pipeline stages: one copy per stage, each summing its loss over the
// pipeline axis (stage 0's is zero).
// CHECK-LABEL: func.func @eval_step_stage0(
// CHECK-SAME: attributes {tfm.eval_step, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64}
// CHECK: dist.send %{{.*}} on @mesh["pp"] offset 1
// CHECK-NEXT: %[[Z:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce %[[Z]] on @mesh["pp"] sum : tensor<f32> -> tensor<f32>
// CHECK-NEXT: return %[[R]] : tensor<f32>
// CHECK-LABEL: func.func @fwd_stage0(
// CHECK: return %{{.*}} : tensor<f32>
// CHECK-LABEL: func.func @eval_step_stage1(
// CHECK-SAME: attributes {tfm.eval_step, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64}
// CHECK: dist.recv on @mesh["pp"] offset -1
// CHECK: %[[LOSS:.*]] = tfm.cross_entropy
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce %[[LOSS]] on @mesh["pp"] sum
// CHECK-NEXT: return %[[R]] : tensor<f32>
dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
func.func @fwd_stage0(%ids: tensor<4x2xi64> {tfm.name = "input_ids"}, %labels: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  dist.send %x on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
  %zero = tfm.fill 0.000000e+00 : tensor<f32>
  return %zero : tensor<f32>
}
func.func @fwd_stage1(%ids: tensor<4x2xi64> {tfm.name = "input_ids"}, %labels: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %logits = tfm.linear %x, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
