// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=1" | FileCheck %s --check-prefix=ONE
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=2" | FileCheck %s --check-prefixes=P2M2,P4M2
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=4" | FileCheck %s --check-prefixes=P2M4,P4M4
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=2" | FileCheck %s --check-prefix=SUM

// Pipeline parallelism: each stage's step runs its micro-batches in the
// 1F1B order as one tfm.micro_batch_loop. Stage k of P has lag w =
// min(P-1-k, M): the loop's backward part (from the seed) runs w
// micro-batches behind its forward part (w warm-up forwards, then one
// forward and one backward per micro-batch, then w cool-down backwards:
// the order itself is the lowering's, Conversion/SpToRuntime/
// micro-batches-lag.mlir). The last stage has no lag. The stages before the
// last return a zero loss, which stays outside the loop.

// ONE-LABEL: func.func @train_step_stage0(
// ONE-NOT: tfm.in_micro_batch
// ONE-LABEL: func.func @train_step_stage1(
// ONE-NOT: tfm.in_micro_batch
// ONE-LABEL: func.func @train_step_stage0(
// ONE-NOT: tfm.in_micro_batch
// ONE-LABEL: func.func @train_step_stage1(
// ONE-NOT: tfm.in_micro_batch
// ONE-LABEL: func.func @train_step_stage2(
// ONE-NOT: tfm.in_micro_batch
// ONE-LABEL: func.func @train_step_stage3(
// ONE-NOT: tfm.in_micro_batch

dist.mesh @mesh ["pp" = 2, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dx = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.embedding_grad %ids, %dx {tfm.contributes = ["wte#0"]} : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
func.func @train_step_stage1(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %logits = tfm.linear %x, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
  %n = tfm.label_count %labels ignore_index -100 : tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %count = dist.all_reduce %n on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %ce = tfm.cross_entropy %logits, %labels count %count ignore_index -100 : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %loss = dist.all_reduce %ce on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dl = tfm.cross_entropy_grad %logits, %labels, %seed count %count ignore_index -100 : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>, tensor<f32>) -> tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
  %dx = tfm.linear_grad_input %dl, %w : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.linear_grad_weight %x, %dl {tfm.contributes = ["wte#0"]} : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %dx on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
// P2M2-LABEL: func.func @train_step_stage0(
// P2M2: tfm.micro_batch_loop({{.*}}) {lag = 1 : i64}
// P2M2: tfm.embedding
// P2M2: dist.send
// P2M2: tfm.fill 1.000000e+00 {tfm.backward_begins}
// P2M2: dist.recv
// P2M2: tfm.embedding_grad
// P2M2: tfm.yield
// P2M2-LABEL: func.func @train_step_stage1(
// P2M2: tfm.micro_batch_loop({{.*}}) : (
// P2M2: tfm.cross_entropy
// P2M2: tfm.linear_grad_weight
// P2M2: tfm.yield
// P2M4-LABEL: func.func @train_step_stage0(
// P2M4: tfm.micro_batch_loop({{.*}}) {lag = 1 : i64} : (tensor<4x8x1xi64
// P2M4-LABEL: func.func @train_step_stage1(
// P2M4: tfm.micro_batch_loop({{.*}}) : (tensor<4x8x1xi64
// The sums: stage 0's zero loss is returned as it is, the last stage's
// loop sums its micro-batches' losses, each stage's its gradients.
// SUM-LABEL: func.func @train_step_stage0(
// SUM: %[[ZERO:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// SUM: %[[G:.*]] = tfm.micro_batch_loop
// SUM: %[[GI:.*]] = tfm.embedding_grad
// SUM: tfm.yield %[[GI]]
// SUM: return %[[ZERO]], %[[G]]
// SUM-LABEL: func.func @train_step_stage1(
// SUM: %[[R:.*]]:2 = tfm.micro_batch_loop
// SUM: %[[L:.*]] = dist.all_reduce %{{.*}} on @mesh["dp"] sum
// SUM: %[[GI:.*]] = tfm.linear_grad_weight
// SUM: tfm.yield %[[L]], %[[GI]]
// SUM: return %[[R]]#0, %[[R]]#1

// -----

dist.mesh @mesh ["pp" = 4, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
tfm.param @w1 : tensor<4x4xf32> init normal(2.000000e-02)
tfm.param @w2 : tensor<4x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 4 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dx = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.embedding_grad %ids, %dx {tfm.contributes = ["wte#0"]} : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
func.func @train_step_stage1(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w1}) attributes {tfm.grad_uses = {w1 = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 4 : i64, tfm.train_step} {
  %w = tfm.get_param @w1 : tensor<4x4xf32>
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %y = tfm.linear %x, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %y on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dy = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dx = tfm.linear_grad_input %dy, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.linear_grad_weight %x, %dy {tfm.contributes = ["w1#0"]} : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %dx on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %loss, %dw : tensor<f32>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>>
}
func.func @train_step_stage2(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w2}) attributes {tfm.grad_uses = {w2 = 1 : i64}, tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 4 : i64, tfm.train_step} {
  %w = tfm.get_param @w2 : tensor<4x4xf32>
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %y = tfm.linear %x, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %y on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dy = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dx = tfm.linear_grad_input %dy, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.linear_grad_weight %x, %dy {tfm.contributes = ["w2#0"]} : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %dx on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %loss, %dw : tensor<f32>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>>
}
func.func @train_step_stage3(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 3 : i64, tfm.pipeline_stages = 4 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %logits = tfm.linear %x, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
  %n = tfm.label_count %labels ignore_index -100 : tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %count = dist.all_reduce %n on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %ce = tfm.cross_entropy %logits, %labels count %count ignore_index -100 : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %loss = dist.all_reduce %ce on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dl = tfm.cross_entropy_grad %logits, %labels, %seed count %count ignore_index -100 : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>, tensor<f32>) -> tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
  %dx = tfm.linear_grad_input %dl, %w : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.linear_grad_weight %x, %dl {tfm.contributes = ["wte#0"]} : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %dx on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
// P4M2-LABEL: func.func @train_step_stage0(
// P4M2: tfm.micro_batch_loop({{.*}}) {lag = 2 : i64}
// P4M2-LABEL: func.func @train_step_stage1(
// P4M2: tfm.micro_batch_loop({{.*}}) {lag = 2 : i64}
// P4M2-LABEL: func.func @train_step_stage2(
// P4M2: tfm.micro_batch_loop({{.*}}) {lag = 1 : i64}
// P4M2-LABEL: func.func @train_step_stage3(
// P4M2: tfm.micro_batch_loop({{.*}}) : (
// P4M4-LABEL: func.func @train_step_stage0(
// P4M4: tfm.micro_batch_loop({{.*}}) {lag = 3 : i64}
// P4M4-LABEL: func.func @train_step_stage1(
// P4M4: tfm.micro_batch_loop({{.*}}) {lag = 2 : i64}
// P4M4-LABEL: func.func @train_step_stage2(
// P4M4: tfm.micro_batch_loop({{.*}}) {lag = 1 : i64}
// P4M4-LABEL: func.func @train_step_stage3(
// P4M4: tfm.micro_batch_loop({{.*}}) : (
