// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=3 peel-last=true" -sp-sync-grads -sp-optimizer -sp-overlap-grad-reductions -sp-plan-buffers -convert-sp-to-runtime | FileCheck %s

// The last micro-batch peeled out of the loop (sp-micro-batches
// peel-last): the loop runs micro-batches 0 and 1 (its count, 2) and tells
// the runtime each of them out of 3; after it micro-batch 2 runs as
// straight-line calls, told sprt_set_micro_batch(2, 3) first and reading
// its ids in place at byte 2 x 64; its gradient is added to the loop's sum
// (sprt_add_f32) and the bucket's reduction starts then (async) and is
// waited for before the optimizer reads it.
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %[[IDS:[a-z0-9]+]]: !llvm.ptr,
// CHECK: ^[[HEADER:bb[0-9]+]](%[[I:.*]]: i64):
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[MORE:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK-NEXT: llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: llvm.call @sprt_set_micro_batch(%[[I]], %[[M]])
// CHECK: llvm.call @sprt_op_embedding(
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: %[[LAST:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[M2:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: llvm.call @sprt_set_micro_batch(%[[LAST]], %[[M2]])
// CHECK-NOT: llvm.call @sprt_set_micro_batch
// CHECK: %[[OFF:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: %[[IDS2:.*]] = llvm.getelementptr %[[IDS]][%[[OFF]]]
// CHECK: llvm.call @sprt_op_embedding(%[[IDS2]],
// The embedding's gradient, its two contributions' sum, then the step's.
// CHECK: llvm.call @sprt_op_embedding_grad(
// CHECK: llvm.call @sprt_add_f32(
// CHECK: llvm.call @sprt_add_f32(
// CHECK-NOT: llvm.call @sprt_op_
// CHECK: %[[H:.*]] = llvm.call @sprt_all_reduce_coalesced_start(
// CHECK: llvm.call @sprt_wait(%[[H]])
// CHECK: llvm.call @sprt_op_adamw(
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  %logits = tfm.linear %x, %w weight_layout out_in : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
