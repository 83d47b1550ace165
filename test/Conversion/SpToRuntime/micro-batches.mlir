// RUN: sp-opt %s -sp-partition="dp=2" -tfm-autodiff -sp-micro-batches="micro-batches=3" -sp-sync-grads -sp-optimizer -sp-plan-buffers -convert-sp-to-runtime > %t
// RUN: FileCheck %s < %t
// RUN: grep -c "llvm.call @sprt_set_micro_batch\|llvm.call @sprt_op_embedding(" %t | FileCheck %s --check-prefix=ONCE

// A step over three micro-batches is one loop over them: each iteration
// tells the runtime its micro-batch (sprt_set_micro_batch(i, 3)), reads
// micro-batch i of the [3, 8, 1] ids and labels in place at byte offset
// i * 64 of the argument, and adds what it yields into the sums (the first
// micro-batch's copied, scaled by 1, the others added in order); the model
// JSON says the micro-batch count next to the micro-batch's global [s, b] =
// [8, 2].
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %[[IDS:[a-z0-9]+]]: !llvm.ptr, %[[LABELS:[a-z0-9]+]]: !llvm.ptr,
// The label count reads this rank's labels of all three micro-batches (3 x
// 8 x 1), before the loop.
// CHECK: %[[N:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK: llvm.call @sprt_label_count_f32(%[[LABELS]], %{{.*}}, %[[N]],
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: llvm.br ^[[HEADER:bb[0-9]+]](%[[ZERO]] : i64)
// CHECK: ^[[HEADER]](%[[I:.*]]: i64):
// CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[MORE:.*]] = llvm.icmp "slt" %[[I]], %[[M]] : i64
// CHECK-NEXT: llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK-NEXT: %[[M2:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: llvm.call @sprt_set_micro_batch(%[[I]], %[[M2]])
// CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[I]], %[[STRIDE]] : i64
// CHECK-NEXT: %[[IDSI:.*]] = llvm.getelementptr %[[IDS]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.call @sprt_op_embedding(%[[IDSI]],
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[I]], %{{.*}} : i64
// CHECK-NEXT: llvm.cond_br %[[FIRST]], ^[[COPY:bb[0-9]+]], ^[[ADD:bb[0-9]+]]
// CHECK: ^[[COPY]]:
// CHECK: llvm.call @sprt_op_scale(
// CHECK: llvm.call @sprt_op_scale(
// CHECK: llvm.br ^[[LATCH:bb[0-9]+]]
// CHECK: ^[[ADD]]:
// CHECK: llvm.call @sprt_add_f32(
// CHECK: llvm.call @sprt_add_f32(
// CHECK: llvm.br ^[[LATCH]]
// CHECK: ^[[LATCH]]:
// CHECK: %[[NEXT:.*]] = llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT: llvm.br ^[[HEADER]](%[[NEXT]] : i64)
// CHECK: ^[[EXIT]]:
// CHECK-NOT: sprt_set_micro_batch
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: \22batch\22:2,\22batch_axis\22:0,
// CHECK-SAME: \22micro_batches\22:3,
// CHECK-SAME: \22seq\22:8,
// One call of each in the IR, whatever M.
// ONCE: 2
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  %logits = tfm.linear %x, %w weight_layout out_in : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
