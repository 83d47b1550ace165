// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=1" | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=4" -sp-sync-grads -sp-optimizer -sp-verify | FileCheck %s --check-prefix=OPT
// RUN: sp-opt %s -split-input-file -sp-recompute="policy=full" -sp-micro-batches="micro-batches=4" -sp-sync-grads="zero=1" -sp-optimizer -sp-verify -o /dev/null

// Pipeline parallelism, tied embeddings: @wte is read by stage 0 (the
// embedding) and by stage 2 (the LM head). Each of the two sends its
// contribution to the other (offset = other stage - this stage), receives
// the other's and adds both in stage order (stage 0's first), so both
// copies get the bitwise-same sum, and only then is it reduce-scattered
// over the data axis. Stage 1's @w1 is not exchanged. Every stage's loss is
// all-reduced over the pipeline axis.
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK: %[[MINE:.*]] = tfm.embedding_grad
// CHECK-NEXT: dist.send %[[MINE]] on @mesh["pp"] offset 2 : tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[OTHER:.*]] = dist.recv on @mesh["pp"] offset 2 : tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[SUM:.*]] = tfm.add %[[MINE]], %[[OTHER]]
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter_coalesced %[[SUM]] on @mesh["dp"]
// CHECK-NEXT: %[[LOSS:.*]] = dist.all_reduce %{{.*}} on @mesh["pp"] sum : tensor<f32> -> tensor<f32>
// CHECK-NEXT: return %[[LOSS]], %[[R]]
// CHECK-LABEL: func.func @train_step_stage1(
// CHECK-NOT: offset 1 : tensor<4x4xf32
// CHECK: dist.reduce_scatter_coalesced
// CHECK-NEXT: %[[LOSS:.*]] = dist.all_reduce %{{.*}} on @mesh["pp"] sum : tensor<f32> -> tensor<f32>
// CHECK-NEXT: return %[[LOSS]]
// CHECK-LABEL: func.func @train_step_stage2(
// CHECK: %[[MINE:.*]] = tfm.linear_grad_weight
// CHECK: dist.send %[[MINE]] on @mesh["pp"] offset -2 : tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[OTHER:.*]] = dist.recv on @mesh["pp"] offset -2 : tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[SUM:.*]] = tfm.add %[[OTHER]], %[[MINE]]
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter_coalesced %[[SUM]] on @mesh["dp"]
// CHECK-NEXT: %[[LOSS:.*]] = dist.all_reduce %{{.*}} on @mesh["pp"] sum : tensor<f32> -> tensor<f32>
// CHECK-NEXT: return %[[LOSS]], %[[R]]

// The optimizer: each stage's partial norm squared is all-reduced over the
// pipeline axis; @wte counts on stage 0 only (stage 2 adds zero for it).
// OPT-LABEL: func.func @train_step_stage0(
// OPT: %[[G:.*]] = dist.all_reduce_coalesced %{{.*}} on @mesh["dp"] sum
// OPT: %[[SQ:.*]] = tfm.sum_squares %[[G]]
// OPT-NEXT: %[[N:.*]] = dist.all_reduce %[[SQ]] on @mesh["pp"] sum : tensor<f32> -> tensor<f32>
// OPT: tfm.clip_scale %[[N]]
// OPT: tfm.adamw_update @wte, %[[G]]
// OPT-LABEL: func.func @train_step_stage1(
// OPT: %[[G:.*]] = dist.all_reduce_coalesced %{{.*}} on @mesh["dp"] sum
// OPT: %[[SQ:.*]] = tfm.sum_squares %[[G]]
// OPT-NEXT: %[[N:.*]] = dist.all_reduce %[[SQ]] on @mesh["pp"] sum
// OPT: tfm.clip_scale %[[N]]
// OPT: tfm.adamw_update @w1, %[[G]]
// OPT-LABEL: func.func @train_step_stage2(
// OPT: %[[G:.*]] = dist.all_reduce_coalesced %{{.*}} on @mesh["dp"] sum
// OPT-NOT: tfm.sum_squares
// OPT: %[[Z:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// OPT-NEXT: %[[N:.*]] = dist.all_reduce %[[Z]] on @mesh["pp"] sum
// OPT: tfm.clip_scale %[[N]]
// OPT: tfm.adamw_update @wte, %[[G]]

dist.mesh @mesh ["pp" = 3, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
tfm.param @w1 : tensor<4x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dx = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.embedding_grad %ids, %dx {tfm.contributes = ["wte#0"]} : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
func.func @train_step_stage1(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w1}) attributes {tfm.grad_uses = {w1 = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
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
func.func @train_step_stage2(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
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

// -----

// Untied (a head of its own on the last stage): nothing is exchanged, each
// stage's norm counts its own weights.
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK-NOT: dist.send {{.*}} tensor<16x4xf32
// CHECK: dist.reduce_scatter_coalesced
// CHECK-LABEL: func.func @train_step_stage1(
// CHECK-LABEL: func.func @train_step_stage2(
// CHECK-NOT: dist.send {{.*}} tensor<16x4xf32
// CHECK: dist.reduce_scatter_coalesced
// OPT-LABEL: func.func @train_step_stage2(
// OPT: %[[SQ:.*]] = tfm.sum_squares
// OPT-NEXT: dist.all_reduce %[[SQ]] on @mesh["pp"] sum
// OPT: tfm.adamw_update @head

dist.mesh @mesh ["pp" = 3, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
tfm.param @w1 : tensor<4x4xf32> init normal(2.000000e-02)
tfm.param @head : tensor<16x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dx = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.embedding_grad %ids, %dx {tfm.contributes = ["wte#0"]} : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
func.func @train_step_stage1(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w1}) attributes {tfm.grad_uses = {w1 = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
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
func.func @train_step_stage2(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @head}) attributes {tfm.grad_uses = {head = 1 : i64}, tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
  %w = tfm.get_param @head : tensor<16x4xf32>
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %logits = tfm.linear %x, %w : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
  %n = tfm.label_count %labels ignore_index -100 : tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %count = dist.all_reduce %n on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %ce = tfm.cross_entropy %logits, %labels count %count ignore_index -100 : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %loss = dist.all_reduce %ce on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dl = tfm.cross_entropy_grad %logits, %labels, %seed count %count ignore_index -100 : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32>, tensor<f32>) -> tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>
  %dx = tfm.linear_grad_input %dl, %w : (tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.linear_grad_weight %x, %dl {tfm.contributes = ["head#0"]} : (tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x16xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %dx on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
}
