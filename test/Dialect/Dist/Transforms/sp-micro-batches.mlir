// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=3" | FileCheck %s
// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=3" -sp-sync-grads -sp-optimizer -sp-verify | FileCheck %s --check-prefix=STEP
// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=1" | FileCheck %s --check-prefix=ONE
// RUN: sp-opt %s -tfm-autodiff -sp-micro-batches="micro-batches=2" | FileCheck %s --check-prefix=DEVICE

// Gradient accumulation: the step over three micro-batches takes [3, s, b]
// ids and labels (their layouts one dimension higher), counts the labels of
// all three once (the loss is the mean over the step's tokens), then loops
// over the micro-batches: one copy of the forward and backward, whose block
// arguments are micro-batch i of the ids and labels, and whose yielded loss
// and gradients the loop sums. The IR does not grow with M.
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  %y = tfm.dropout %x rate 0.1 stream 0 : tensor<8x2x4xf32>
  %logits = tfm.linear %y, %w weight_layout out_in : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[IDS:[a-z0-9]+]]: tensor<3x8x1xi64, #dist.layout<@mesh, dp = S(2)>>, %[[LABELS:[a-z0-9]+]]: tensor<3x8x1xi64, #dist.layout<@mesh, dp = S(2)>>)
// CHECK-SAME: -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte})
// CHECK-SAME: attributes {tfm.grad_uses = {wte = 2 : i64}, tfm.micro_batches = 3 : i64, tfm.train_step}
// CHECK: %[[W:.*]] = tfm.get_param @wte
// CHECK-NEXT: %[[N:.*]] = tfm.label_count %[[LABELS]] ignore_index -100 : tensor<3x8x1xi64, #dist.layout<@mesh, dp = S(2)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[COUNT:.*]] = dist.all_reduce %[[N]] on @mesh["dp"] sum
// CHECK-NEXT: %[[SUMS:.*]]:2 = tfm.micro_batch_loop(%[[IDS]], %[[LABELS]]) : (tensor<3x8x1xi64, #dist.layout<@mesh, dp = S(2)>>, tensor<3x8x1xi64, #dist.layout<@mesh, dp = S(2)>>) -> (tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>) {
// CHECK-NEXT: ^bb0(%[[IDSI:.*]]: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>, %[[LABELSI:.*]]: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>):
// CHECK-NEXT: tfm.embedding %[[IDSI]], %[[W]] :
// CHECK: tfm.cross_entropy %{{.*}}, %[[LABELSI]] count %[[COUNT]] ignore_index -100 :
// CHECK: %[[LOSS:.*]] = dist.all_reduce {{.*}} on @mesh["dp"] sum
// CHECK-NEXT: tfm.fill 1.000000e+00 {tfm.backward_begins}
// CHECK: %[[G:.*]] = tfm.add {{.*}} : tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: tfm.yield %[[LOSS]], %[[G]] : tensor<f32>, tensor<16x4xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[SUMS]]#0, %[[SUMS]]#1
// CHECK-NOT: tfm.micro_batch
// CHECK-NOT: tfm.in_micro_batch

// The summed gradient is reduced over dp once, after the loop, and the
// update applies it once.
// STEP-LABEL: func.func @train_step(
// STEP: %[[SUMS:.*]]:2 = tfm.micro_batch_loop
// STEP-NOT: dist.all_reduce_coalesced
// STEP: tfm.yield
// STEP-NEXT: }
// STEP-NEXT: %[[R:.*]] = dist.all_reduce_coalesced %[[SUMS]]#1 on @mesh["dp"] sum
// STEP-NOT: dist.all_reduce_coalesced
// STEP: tfm.adamw_update @wte, %[[R]]

// One micro-batch: the step is unchanged.
// ONE-LABEL: func.func @train_step(
// ONE-SAME: tensor<8x1xi64, #dist.layout<@mesh, dp = S(1)>>
// ONE-NOT: tfm.micro_batch
// ONE-NOT: tfm.micro_batches
// ONE-NOT: tfm.in_micro_batch

// One device: the cross-entropy divided by its own token count; over
// micro-batches it (and its gradient) divides by the step's, counted once.
// DEVICE-LABEL: func.func @train_step(
// DEVICE-SAME: %{{[a-z0-9]+}}: tensor<2x8x2xi64>, %[[LABELS:[a-z0-9]+]]: tensor<2x8x2xi64>)
// DEVICE-NEXT: %[[N:.*]] = tfm.label_count %[[LABELS]] ignore_index -100 : tensor<2x8x2xi64> -> tensor<f32>
// DEVICE: tfm.micro_batch_loop
// DEVICE: tfm.cross_entropy %{{.*}} count %[[N]] ignore_index -100 :
// DEVICE: tfm.cross_entropy_grad %{{.*}} count %[[N]] ignore_index -100 :
// DEVICE: tfm.yield
// DEVICE-NOT: tfm.cross_entropy
// DEVICE-NOT: tfm.label_count
