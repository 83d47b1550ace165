// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=1" | FileCheck %s --check-prefix=ONE
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=2" | FileCheck %s --check-prefixes=P2M2,P4M2
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=4" | FileCheck %s --check-prefixes=P2M4,P4M4
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=2" | FileCheck %s --check-prefix=SUM

// Pipeline parallelism: each stage's step runs its micro-batches in the
// 1F1B order. Stage k of P runs w = min(P-1-k, M) warm-up forwards, then
// one forward and the oldest pending backward per remaining micro-batch,
// then the w cool-down backwards. A forward is marked here by the stage's
// embedding / linear / cross-entropy, a backward by its weight gradient.
// The stages before the last return a zero loss, which stays as it is.

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
// w = 1: F0 F1 B0 B1
// P2M2: tfm.embedding {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M2: tfm.embedding {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M2: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M2: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M2: return
// P2M2-LABEL: func.func @train_step_stage1(
// w = 0: F0 B0 F1 B1
// P2M2: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M2: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M2: return
// P2M4-LABEL: func.func @train_step_stage0(
// w = 1: F0 F1 B0 F2 B1 F3 B2 B3
// P2M4: tfm.embedding {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M4: tfm.embedding {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M4: tfm.embedding {{.*}}tfm.in_micro_batch = 2 : i64}
// P2M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M4: tfm.embedding {{.*}}tfm.in_micro_batch = 3 : i64}
// P2M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 2 : i64}
// P2M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 3 : i64}
// P2M4: return
// P2M4-LABEL: func.func @train_step_stage1(
// w = 0: F0 B0 F1 B1 F2 B2 F3 B3
// P2M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P2M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P2M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 2 : i64}
// P2M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 2 : i64}
// P2M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 3 : i64}
// P2M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 3 : i64}
// P2M4: return
// The sums: stage 0's zero loss is returned as it is, the last stage sums
// its micro-batches' losses and each stage its gradients, in order.
// SUM-LABEL: func.func @train_step_stage0(
// SUM: %[[ZERO:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// SUM: %[[G0:.*]] = tfm.embedding_grad {{.*}}tfm.in_micro_batch = 0 : i64}
// SUM: %[[G1:.*]] = tfm.embedding_grad {{.*}}tfm.in_micro_batch = 1 : i64}
// SUM-NEXT: %[[G:.*]] = tfm.add %[[G0]], %[[G1]]
// SUM-NEXT: return %[[ZERO]], %[[G]]
// SUM-LABEL: func.func @train_step_stage1(
// SUM: %[[L0:.*]] = dist.all_reduce %{{.*}} on @mesh["dp"] sum {tfm.in_micro_batch = 0 : i64}
// SUM: %[[L1:.*]] = dist.all_reduce %{{.*}} on @mesh["dp"] sum {tfm.in_micro_batch = 1 : i64}
// SUM: %[[G1:.*]] = tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// SUM: %[[L:.*]] = tfm.add %[[L0]], %[[L1]]
// SUM-NEXT: %[[G:.*]] = tfm.add %{{.*}}, %[[G1]]
// SUM-NEXT: return %[[L]], %[[G]]

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
// w = 2: F0 F1 B0 B1
// P4M2: tfm.embedding {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.embedding {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: return
// P4M2-LABEL: func.func @train_step_stage1(
// w = 2: F0 F1 B0 B1
// P4M2: tfm.linear {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.linear {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: return
// P4M2-LABEL: func.func @train_step_stage2(
// w = 1: F0 F1 B0 B1
// P4M2: tfm.linear {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.linear {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: return
// P4M2-LABEL: func.func @train_step_stage3(
// w = 0: F0 B0 F1 B1
// P4M2: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M2: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M2: return
// P4M4-LABEL: func.func @train_step_stage0(
// w = 3: F0 F1 F2 F3 B0 B1 B2 B3
// P4M4: tfm.embedding {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.embedding {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.embedding {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.embedding {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.embedding_grad {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: return
// P4M4-LABEL: func.func @train_step_stage1(
// w = 2: F0 F1 F2 B0 F3 B1 B2 B3
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: return
// P4M4-LABEL: func.func @train_step_stage2(
// w = 1: F0 F1 B0 F2 B1 F3 B2 B3
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.linear {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: return
// P4M4-LABEL: func.func @train_step_stage3(
// w = 0: F0 B0 F1 B1 F2 B2 F3 B3
// P4M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 0 : i64}
// P4M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 1 : i64}
// P4M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 2 : i64}
// P4M4: tfm.cross_entropy {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: tfm.linear_grad_weight {{.*}}tfm.in_micro_batch = 3 : i64}
// P4M4: return
