// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=4 peel-last=true" | FileCheck %s
// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=4 peel-last=true" -sp-sync-grads="bucket-bytes=64" -sp-optimizer -sp-overlap-grad-reductions -sp-verify | FileCheck %s --check-prefix=OVERLAP
// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=2 peel-last=true" | FileCheck %s --check-prefix=TWO
// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=1 peel-last=true" | FileCheck %s --check-prefix=ONE

// sp-micro-batches peel-last (what the train pipeline runs before
// sp-overlap-grad-reductions): the loop runs micro-batches 0 to M - 2
// (count = M - 1) and micro-batch M - 1 follows it as straight-line ops
// (tfm.micro_batch [M - 1], tfm.in_micro_batch = M - 1), each of its loss
// and gradients added to the loop's sum right after it is computed (the
// sums in micro-batch order, as the loop adds them). Two copies of the
// forward and backward, whatever M.
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
tfm.param @w1 : tensor<4x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %w1 = tfm.get_param @w1 : tensor<4x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  %h = tfm.linear %x, %w1 weight_layout out_in : (tensor<8x2x4xf32>, tensor<4x4xf32>) -> tensor<8x2x4xf32>
  %logits = tfm.linear %h, %w weight_layout out_in : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[IDS:[a-z0-9]+]]: tensor<4x8x1xi64, #dist.layout<@mesh, dp = S(2)>>, %[[LABELS:[a-z0-9]+]]: tensor<4x8x1xi64, #dist.layout<@mesh, dp = S(2)>>)
// CHECK-SAME: tfm.micro_batches = 4 : i64
// CHECK: %[[COUNT:.*]] = dist.all_reduce {{.*}} on @mesh["dp"] sum
// CHECK-NEXT: %[[SUMS:.*]]:3 = tfm.micro_batch_loop(%[[IDS]], %[[LABELS]]) {count = 3 : i64} :
// CHECK-COUNT-1: tfm.fill 1.000000e+00 {tfm.backward_begins}
// CHECK: tfm.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[IDS3:.*]] = tfm.micro_batch %[[IDS]][3] {tfm.in_micro_batch = 3 : i64} : tensor<4x8x1xi64, #dist.layout<@mesh, dp = S(2)>> -> tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>
// CHECK-NEXT: %[[LABELS3:.*]] = tfm.micro_batch %[[LABELS]][3] {tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: %[[X:.*]] = tfm.embedding %[[IDS3]], %{{.*}} {tfm.in_micro_batch = 3 : i64}
// CHECK: tfm.cross_entropy %{{.*}}, %[[LABELS3]] count %[[COUNT]] ignore_index -100 {tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: %[[LOSS3:.*]] = dist.all_reduce {{.*}} on @mesh["dp"] sum {tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: %[[LOSS:.*]] = tfm.add %[[SUMS]]#0, %[[LOSS3]] {tfm.in_micro_batch = 3 : i64} : tensor<f32>
// CHECK-NEXT: tfm.fill 1.000000e+00 {tfm.backward_begins, tfm.in_micro_batch = 3 : i64}
// w1's gradient is complete before the embedding's backward, and so is
// its sum.
// CHECK: %[[DW1:.*]] = tfm.linear_grad_weight %[[X]], %{{.*}} {tfm.contributes = ["w1#0"], tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: %[[W1:.*]] = tfm.add %[[SUMS]]#2, %[[DW1]] {tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: tfm.embedding_grad %[[IDS3]], {{.*}} {tfm.contributes = ["wte#1"], tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: %[[DWTE:.*]] = tfm.add {{.*}} {tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: %[[WTE:.*]] = tfm.add %[[SUMS]]#1, %[[DWTE]] {tfm.in_micro_batch = 3 : i64}
// CHECK-NEXT: return %[[LOSS]], %[[WTE]], %[[W1]]

// Overlapped: w1's bucket starts right after its sum, during micro-batch
// 3's backward (before the embedding's), wte's after its own.
// OVERLAP-LABEL: func.func @train_step(
// OVERLAP: tfm.micro_batch_loop
// OVERLAP-NOT: dist.all_reduce_coalesced
// OVERLAP: tfm.yield
// OVERLAP-NOT: dist.all_reduce_coalesced
// OVERLAP: %[[W1:.*]] = tfm.add %{{.*}}#2, %{{.*}} {tfm.in_micro_batch = 3 : i64}
// OVERLAP-NEXT: %[[RW1:.*]] = dist.all_reduce_coalesced %[[W1]] on @mesh["dp"] sum async
// OVERLAP-NEXT: tfm.embedding_grad {{.*}} {tfm.contributes = ["wte#1"], tfm.in_micro_batch = 3 : i64}
// OVERLAP-NEXT: tfm.add
// OVERLAP-NEXT: %[[WTE:.*]] = tfm.add %{{.*}}#1, %{{.*}} {tfm.in_micro_batch = 3 : i64}
// OVERLAP-NEXT: %[[RWTE:.*]] = dist.all_reduce_coalesced %[[WTE]] on @mesh["dp"] sum async
// OVERLAP: tfm.adamw_update @wte, %[[RWTE]]
// OVERLAP: tfm.adamw_update @w1, %[[RW1]]

// Two micro-batches: a loop of one, then micro-batch 1.
// TWO-LABEL: func.func @train_step(
// TWO: tfm.micro_batch_loop({{.*}}) {count = 1 : i64} : (tensor<2x8x1xi64
// TWO: tfm.micro_batch %{{.*}}[1] {tfm.in_micro_batch = 1 : i64}

// One micro-batch: no loop at all, the step unchanged.
// ONE-LABEL: func.func @train_step(
// ONE-NOT: tfm.micro_batch
// ONE-NOT: tfm.in_micro_batch
