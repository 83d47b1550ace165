// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=3" -sp-sync-grads -sp-optimizer -sp-plan-buffers -convert-sp-to-runtime > %t
// RUN: FileCheck %s < %t
// RUN: grep -B2 "llvm.call @sprt_set_micro_batch" %t | FileCheck %s --check-prefix=SET

// A step over three micro-batches: the runtime is told which micro-batch the
// ops that follow belong to (sprt_set_micro_batch(i, 3), where it changes),
// micro-batch i of the [3, 8, 1] ids and labels is read in place at byte
// offset i * 64 of the argument, and the model JSON says the micro-batch
// count next to the micro-batch's global [s, b] = [8, 2].
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %[[IDS:[a-z0-9]+]]: !llvm.ptr, %[[LABELS:[a-z0-9]+]]: !llvm.ptr,
// The label count reads this rank's labels of all three micro-batches (3 x
// 8 x 1), before any micro-batch.
// CHECK: %[[N:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK: llvm.call @sprt_label_count_f32(%[[LABELS]], %{{.*}}, %[[N]],
// CHECK: llvm.call @sprt_set_micro_batch(
// Micro-batch 0 at offset 0: the argument itself.
// CHECK: llvm.call @sprt_op_embedding(%[[IDS]],
// CHECK: llvm.call @sprt_set_micro_batch(
// CHECK: %[[OFF1:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[IDS1:.*]] = llvm.getelementptr %[[IDS]][%[[OFF1]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.call @sprt_op_embedding(%[[IDS1]],
// CHECK: llvm.call @sprt_set_micro_batch(
// CHECK: %[[OFF2:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: %[[IDS2:.*]] = llvm.getelementptr %[[IDS]][%[[OFF2]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.call @sprt_op_embedding(%[[IDS2]],
// CHECK-NOT: sprt_set_micro_batch
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: \22batch\22:2,\22batch_axis\22:0,
// CHECK-SAME: \22micro_batches\22:3,
// CHECK-SAME: \22seq\22:8,
// The three calls: (0, 3), (1, 3), (2, 3).
// SET: %[[I0:.*]] = llvm.mlir.constant(0 : i64) : i64
// SET-NEXT: %[[M0:.*]] = llvm.mlir.constant(3 : i64) : i64
// SET-NEXT: llvm.call @sprt_set_micro_batch(%[[I0]], %[[M0]])
// SET: %[[I1:.*]] = llvm.mlir.constant(1 : i64) : i64
// SET-NEXT: %[[M1:.*]] = llvm.mlir.constant(3 : i64) : i64
// SET-NEXT: llvm.call @sprt_set_micro_batch(%[[I1]], %[[M1]])
// SET: %[[I2:.*]] = llvm.mlir.constant(2 : i64) : i64
// SET-NEXT: %[[M2:.*]] = llvm.mlir.constant(3 : i64) : i64
// SET-NEXT: llvm.call @sprt_set_micro_batch(%[[I2]], %[[M2]])
// SET-NOT: sprt_set_micro_batch
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  %logits = tfm.linear %x, %w weight_layout out_in : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
