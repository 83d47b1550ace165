// RUN: sp-opt %s -sp-micro-batches="micro-batches=3" -sp-sync-grads -sp-verify -sp-plan-buffers -convert-sp-to-runtime | FileCheck %s

// A pipeline stage's 1F1B order as one loop (sp-micro-batches' lag): stage
// 0 of 2 with 3 micro-batches has lag 1, so its loop runs t = 0 .. 3
// (M + lag iterations): the forward part of micro-batch t while t < 3,
// then the backward part of micro-batch t - 1 once t >= 1 (F0, F1 B0,
// F2 B1, B2), each part telling the runtime its micro-batch and reading
// the ids of that micro-batch (byte offset i * 64). The embedding's output
// %x, which the backward's weight gradient reads a micro-batch later, is a
// stash: min(lag + 1, M) = 2 copies of its 128 bytes from arena offset 256,
// micro-batch i's at 256 + (i mod 2) * 128, written by the forward part at
// i = t and read by the backward part at i = t - 1. Only the backward part
// yields (the gradients): its sums start at micro-batch 0.
// CHECK-LABEL: llvm.func internal @seqpar_step_stage0(
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %[[IDS:[a-z0-9]+]]: !llvm.ptr,
// CHECK: ^[[HEADER:bb[0-9]+]](%[[T:.*]]: i64):
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[MORE:.*]] = llvm.icmp "slt" %[[T]], %[[N]] : i64
// CHECK-NEXT: llvm.cond_br %[[MORE]], ^{{bb[0-9]+}}, ^[[EXIT:bb[0-9]+]]
// The forward part.
// CHECK: %[[M:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[FWD:.*]] = llvm.icmp "slt" %[[T]], %[[M]] : i64
// CHECK-NEXT: llvm.cond_br %[[FWD]], ^[[F:bb[0-9]+]], ^[[B:bb[0-9]+]]
// CHECK: ^[[F]]:
// CHECK: llvm.call @sprt_set_micro_batch(%[[T]],
// CHECK: %[[FOFF:.*]] = llvm.mul %[[T]], %{{.*}} : i64
// CHECK-NEXT: %[[FIDS:.*]] = llvm.getelementptr %[[IDS]][%[[FOFF]]]
// CHECK-NEXT: %[[S2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[FSLOT:.*]] = llvm.urem %[[T]], %[[S2]] : i64
// CHECK-NEXT: %[[STRIDE:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: %[[FBYTES:.*]] = llvm.mul %[[FSLOT]], %[[STRIDE]] : i64
// CHECK-NEXT: %[[BASE:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: %[[FAT:.*]] = llvm.add %[[BASE]], %[[FBYTES]] : i64
// CHECK-NEXT: %[[FX:.*]] = llvm.getelementptr %[[ARENA]][%[[FAT]]]
// CHECK: llvm.call @sprt_op_embedding(%[[FIDS]], %{{.*}}, %[[FX]],
// CHECK: llvm.call @sprt_send(
// A warm-up forward (t < lag: no backward part follows it) then issues its
// send alone (sprt_flush_sends on the send's axis); a steady-state one
// leaves it to go out with the backward part's recv.
// CHECK-NEXT: llvm.call @sprt_trace_end()
// CHECK-NEXT: %[[LAG:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[WARM:.*]] = llvm.icmp "slt" %[[T]], %[[LAG]] : i64
// CHECK-NEXT: llvm.cond_br %[[WARM]], ^[[FLUSH:bb[0-9]+]], ^[[AFTER:bb[0-9]+]]
// CHECK-NEXT: ^[[FLUSH]]:
// CHECK-NEXT: %[[AXIS:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @sprt_flush_sends(%[[AXIS]]) : (i32) -> ()
// CHECK-NEXT: llvm.br ^[[AFTER]]
// CHECK-NOT: sprt_op_scale
// CHECK: llvm.br ^[[B]]
// The backward part, of micro-batch t - 1.
// CHECK: ^[[B]]:
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[I:.*]] = llvm.sub %[[T]], %[[ONE]] : i64
// CHECK-NEXT: %[[ONE2:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[BWD:.*]] = llvm.icmp "sge" %[[T]], %[[ONE2]] : i64
// CHECK-NEXT: llvm.cond_br %[[BWD]], ^[[BB:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK: ^[[BB]]:
// CHECK: llvm.call @sprt_set_micro_batch(%[[I]],
// CHECK: llvm.call @sprt_recv(
// CHECK: %[[BSLOT:.*]] = llvm.urem %[[I]], %{{.*}} : i64
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: %[[BBYTES:.*]] = llvm.mul %[[BSLOT]], %{{.*}} : i64
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: %[[BAT:.*]] = llvm.add %{{.*}}, %[[BBYTES]] : i64
// CHECK-NEXT: %[[BX:.*]] = llvm.getelementptr %[[ARENA]][%[[BAT]]]
// CHECK: llvm.call @sprt_linear_grad_weight_f32(%[[BX]],
// CHECK: %[[BOFF:.*]] = llvm.mul %[[I]], %{{.*}} : i64
// CHECK-NEXT: %[[BIDS:.*]] = llvm.getelementptr %[[IDS]][%[[BOFF]]]
// CHECK: llvm.call @sprt_op_embedding_grad{{.*}}(%[[BIDS]],
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[I]], %{{.*}} : i64
// CHECK: llvm.call @sprt_op_scale(
// CHECK: llvm.call @sprt_add_f32(
// CHECK: ^[[EXIT]]:
// CHECK-NOT: sprt_flush_sends
// The last stage: no lag, one part, M iterations; its send (the backward's)
// goes out with the next iteration's recv.
// CHECK-LABEL: llvm.func internal @seqpar_step_stage1(
// CHECK: %{{.*}} = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: llvm.icmp "slt"
// CHECK-NOT: llvm.urem
// CHECK-NOT: llvm.sub
// CHECK-NOT: sprt_flush_sends
// CHECK: llvm.return
dist.mesh @mesh ["pp" = 2] roles [pipeline]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
tfm.param @w1 : tensor<4x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%ids: tensor<8x1xi64>, %labels: tensor<8x1xi64>) -> (tensor<f32>, tensor<16x4xf32> {tfm.grad_of = @wte}, tensor<4x4xf32> {tfm.grad_of = @w1}) attributes {tfm.grad_uses = {wte = 1 : i64, w1 = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %w1 = tfm.get_param @w1 : tensor<4x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x1xi64>, tensor<16x4xf32>) -> tensor<8x1x4xf32>
  %h = tfm.linear %x, %w1 : (tensor<8x1x4xf32>, tensor<4x4xf32>) -> tensor<8x1x4xf32>
  dist.send %h on @mesh["pp"] offset 1 : tensor<8x1x4xf32>
  %loss = tfm.fill 0.000000e+00 : tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dh = dist.recv on @mesh["pp"] offset 1 : tensor<8x1x4xf32>
  %dw1 = tfm.linear_grad_weight %x, %dh {tfm.contributes = ["w1#0"]} : (tensor<8x1x4xf32>, tensor<8x1x4xf32>) -> tensor<4x4xf32>
  %dx = tfm.linear_grad_input %dh, %w1 : (tensor<8x1x4xf32>, tensor<4x4xf32>) -> tensor<8x1x4xf32>
  %dw = tfm.embedding_grad %ids, %dx {tfm.contributes = ["wte#0"]} : (tensor<8x1xi64>, tensor<8x1x4xf32>) -> tensor<16x4xf32>
  return %loss, %dw, %dw1 : tensor<f32>, tensor<16x4xf32>, tensor<4x4xf32>
}
func.func @train_step_stage1(%ids: tensor<8x1xi64>, %labels: tensor<8x1xi64>) -> (tensor<f32>, tensor<16x4xf32> {tfm.grad_of = @wte}) attributes {tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %h = dist.recv on @mesh["pp"] offset -1 : tensor<8x1x4xf32>
  %logits = tfm.linear %h, %w : (tensor<8x1x4xf32>, tensor<16x4xf32>) -> tensor<8x1x16xf32>
  %ce = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x1x16xf32>, tensor<8x1xi64>) -> tensor<f32>
  %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  %dl = tfm.cross_entropy_grad %logits, %labels, %seed ignore_index -100 : (tensor<8x1x16xf32>, tensor<8x1xi64>, tensor<f32>) -> tensor<8x1x16xf32>
  %dh = tfm.linear_grad_input %dl, %w : (tensor<8x1x16xf32>, tensor<16x4xf32>) -> tensor<8x1x4xf32>
  %dw = tfm.linear_grad_weight %h, %dl {tfm.contributes = ["wte#0"]} : (tensor<8x1x4xf32>, tensor<8x1x16xf32>) -> tensor<16x4xf32>
  dist.send %dh on @mesh["pp"] offset -1 : tensor<8x1x4xf32>
  return %ce, %dw : tensor<f32>, tensor<16x4xf32>
}
