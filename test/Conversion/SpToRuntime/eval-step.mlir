// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime -verify-diagnostics | FileCheck %s
// RUN: sp-opt %S/Inputs/eval-step-train.mlir -sp-partition="dp=2" -tfm-eval-step -tfm-autodiff -sp-micro-batches="micro-batches=2" -sp-sync-grads -sp-optimizer -sp-plan-buffers -convert-sp-to-runtime | FileCheck %s --check-prefix=TRAIN

// A train step's evaluation step (tfm-eval-step) is lowered to
// `seqpar_eval`, with seqpar_step's signature, in the same arena: the model
// JSON's arena_bytes covers both functions (here the evaluation step's,
// 1088 bytes without a plan, is the larger: the train step alone has 192),
// eval_arena_bytes is its own.
tfm.param @w : tensor<8xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 2.0 : tensor<8xf32>
  %scale = tfm.fill 1.0 : tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %g : tensor<f32>, tensor<8xf32>
}
// CHECK-LABEL: llvm.func @seqpar_eval(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr, %[[PARAMS:[^:]*]]: !llvm.ptr, %[[IDS:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[SCALARS:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr)
// CHECK: llvm.call @sprt_op_embedding(%[[IDS]],
// CHECK: llvm.call @sprt_op_embedding(%[[IDS]],
// CHECK: llvm.return
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: \22arena_bytes\22:1088,
// CHECK-SAME: \22eval_arena_bytes\22:1088,
// CHECK-SAME: \22planned\22:{\22arena\22:1088,
func.func @eval_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32>
    attributes {tfm.eval_step} {
  %w = tfm.get_param @w : tensor<8xf32>
  %t = tfm.fill 0.5 : tensor<8x8xf32>
  %x = tfm.embedding %ids, %t : (tensor<4x2xi64>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %y = tfm.embedding %ids, %t : (tensor<4x2xi64>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %s = tfm.add %x, %y : tensor<4x2x8xf32>
  %l = tfm.cross_entropy %s, %labels ignore_index -100 : (tensor<4x2x8xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An evaluation step needs a train step beside it.
tfm.param @w : tensor<8xf32> init ones
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32>
    attributes {tfm.forward} {
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{convert-sp-to-runtime: an evaluation step (tfm.eval_step) without a train step: a forward-only program is its own}}
func.func @eval_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32>
    attributes {tfm.eval_step} {
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// It takes one micro-batch of the step's tokens and returns the loss.
tfm.param @w : tensor<8xf32> init ones
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 2.0 : tensor<8xf32>
  %scale = tfm.fill 1.0 : tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %g : tensor<f32>, tensor<8xf32>
}
// expected-error @+1 {{convert-sp-to-runtime: an evaluation step takes one micro-batch of its train step's tokens (@train_step: 'tensor<4x2xi64>') and returns the loss alone, got '(tensor<8x2xi64>, tensor<8x2xi64>) -> tensor<f32>'}}
func.func @eval_step(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32>
    attributes {tfm.eval_step} {
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// The pipeline on a model with dropout and 2 micro-batches: the step draws
// dropout masks and tells the runtime its micro-batches; the evaluation
// step, planned in an arena of its own size (640 bytes, within the step's
// 1604), does neither: the runtime sets the micro-batch before each call.
// TRAIN-LABEL: llvm.func @seqpar_step(
// TRAIN: llvm.call @sprt_set_micro_batch(
// TRAIN: llvm.call @sprt_op_dropout(
// TRAIN-LABEL: llvm.func @seqpar_eval(
// TRAIN-NOT: sprt_op_dropout
// TRAIN-NOT: sprt_set_micro_batch
// TRAIN: llvm.call @sprt_cross_entropy_f32(
// TRAIN-NOT: sprt_op_dropout
// TRAIN-NOT: sprt_set_micro_batch
// TRAIN: llvm.mlir.global external constant @seqpar_model_json
// TRAIN-SAME: \22arena_bytes\22:1604,
// TRAIN-SAME: \22eval_arena_bytes\22:640,
