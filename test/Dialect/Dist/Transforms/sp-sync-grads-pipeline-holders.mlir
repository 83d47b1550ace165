// RUN: sp-opt %s -sp-sync-grads="zero=1" | FileCheck %s
// RUN: sp-opt %s -sp-micro-batches="micro-batches=4" -sp-sync-grads -sp-optimizer -sp-verify | FileCheck %s --check-prefix=OPT
// RUN: sp-opt %s -sp-recompute="policy=full" -sp-micro-batches="micro-batches=2" -sp-sync-grads="zero=1" -sp-optimizer -sp-verify -o /dev/null

// A weight held by three stages (sp-pipeline places a tied embedding on the
// first and last stage only; this IR is hand-written): @wte is read by the
// embedding on stage 0, a second embedding added on stage 1 and the LM head
// on stage 2. Each holder exchanges its contribution with each other holder
// in stage order, pairwise (the send to stage j, then the recv from j:
// offset = j - this stage; the pairs' order is the same on every holder, so
// no exchange waits on one queued behind it, even where a send waits for its
// recv, as NCCL's may), then adds the three in stage order ((stage 0 +
// stage 1) + stage 2) whichever stage it is, so every copy gets the
// bitwise-same sum, before ZeRO-1's reduce-scatter over the data axis. The
// schedule with 4 micro-batches passes sp-verify (matching and the deadlock
// simulation) and the norm counts @wte on stage 0 only.
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK: %[[MINE:.*]] = tfm.embedding_grad
// CHECK-NEXT: dist.send %[[MINE]] on @mesh["pp"] offset 1 : tensor<16x4xf32
// CHECK-NEXT: %[[S1:.*]] = dist.recv on @mesh["pp"] offset 1 : tensor<16x4xf32
// CHECK-NEXT: dist.send %[[MINE]] on @mesh["pp"] offset 2 : tensor<16x4xf32
// CHECK-NEXT: %[[S2:.*]] = dist.recv on @mesh["pp"] offset 2 : tensor<16x4xf32
// CHECK-NEXT: %[[A:.*]] = tfm.add %[[MINE]], %[[S1]]
// CHECK-NEXT: %[[B:.*]] = tfm.add %[[A]], %[[S2]]
// CHECK-NEXT: dist.reduce_scatter_coalesced %[[B]] on @mesh["dp"]
// CHECK-LABEL: func.func @train_step_stage1(
// CHECK: %[[MINE:.*]] = tfm.embedding_grad
// CHECK: dist.send %[[MINE]] on @mesh["pp"] offset -1 : tensor<16x4xf32
// CHECK-NEXT: %[[S0:.*]] = dist.recv on @mesh["pp"] offset -1 : tensor<16x4xf32
// CHECK-NEXT: dist.send %[[MINE]] on @mesh["pp"] offset 1 : tensor<16x4xf32
// CHECK-NEXT: %[[S2:.*]] = dist.recv on @mesh["pp"] offset 1 : tensor<16x4xf32
// CHECK-NEXT: %[[A:.*]] = tfm.add %[[S0]], %[[MINE]]
// CHECK-NEXT: %[[B:.*]] = tfm.add %[[A]], %[[S2]]
// CHECK-NEXT: dist.reduce_scatter_coalesced %[[B]] on @mesh["dp"]
// CHECK-LABEL: func.func @train_step_stage2(
// CHECK: %[[MINE:.*]] = tfm.linear_grad_weight
// CHECK: dist.send %[[MINE]] on @mesh["pp"] offset -2 : tensor<16x4xf32
// CHECK-NEXT: %[[S0:.*]] = dist.recv on @mesh["pp"] offset -2 : tensor<16x4xf32
// CHECK-NEXT: dist.send %[[MINE]] on @mesh["pp"] offset -1 : tensor<16x4xf32
// CHECK-NEXT: %[[S1:.*]] = dist.recv on @mesh["pp"] offset -1 : tensor<16x4xf32
// CHECK-NEXT: %[[A:.*]] = tfm.add %[[S0]], %[[S1]]
// CHECK-NEXT: %[[B:.*]] = tfm.add %[[A]], %[[MINE]]
// CHECK-NEXT: dist.reduce_scatter_coalesced %[[B]] on @mesh["dp"]

// OPT-LABEL: func.func @train_step_stage0(
// OPT: tfm.sum_squares
// OPT: tfm.adamw_update @wte
// OPT-LABEL: func.func @train_step_stage1(
// OPT-NOT: tfm.sum_squares
// OPT: tfm.adamw_update @wte
// OPT-LABEL: func.func @train_step_stage2(
// OPT-NOT: tfm.sum_squares
// OPT: tfm.adamw_update @wte

dist.mesh @mesh ["pp" = 3, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
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
func.func @train_step_stage1(%ids: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 3 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %e = tfm.embedding %ids, %w : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<16x4xf32>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %y = tfm.add %x, %e : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  dist.send %y on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dy = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %dw = tfm.embedding_grad %ids, %dy {tfm.contributes = ["wte#0"]} : (tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %dy on @mesh["pp"] offset -1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %loss, %dw : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
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
