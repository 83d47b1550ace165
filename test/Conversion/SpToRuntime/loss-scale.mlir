// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime | FileCheck %s

// A loss-scaled train step (fp16): the seed is a fill multiplied in place by
// the loss scale and the clip scale divides by it, both reading it on the
// device from its slot of the step's table (sprt_op_scale_by,
// sprt_op_clip_scale_by: a step captured as a CUDA graph replays with the
// scale of the step it runs), and the model description records the
// precision and lists loss_scale with its default.
module attributes {tfm.loss_scaling, tfm.precision = "f16"} {
tfm.param @w : tensor<8xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[HYPER:[^:]*]]: !llvm.ptr)
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  // Slot 0 of the table (the model JSON lists loss_scale first).
  // CHECK: %[[A0:.*]] = llvm.getelementptr %[[HYPER]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %[[LS:.*]] = llvm.load %[[A0]] : !llvm.ptr -> f64
  %ls = tfm.hyperparameter loss_scale default 65536.0
  // The seed's buffer (at SEEDAT in the arena) is filled with 1, then scaled
  // in place by the loss scale of slot 0.
  // CHECK: %[[OFF:.*]] = llvm.mlir.constant([[SEEDAT:[0-9]+]] : i64) : i64
  // CHECK-NEXT: %[[SEED:.*]] = llvm.getelementptr %[[ARENA]][%[[OFF]]]
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
  // CHECK-NEXT: llvm.call @sprt_fill_f32(%[[SEED]], %[[N]], %[[ONE]]) : (!llvm.ptr, i64, f64) -> ()
  // CHECK-NEXT: %[[OFF1:.*]] = llvm.mlir.constant([[SEEDAT]] : i64) : i64
  // CHECK-NEXT: %[[OUT:.*]] = llvm.getelementptr %[[ARENA]][%[[OFF1]]]
  // CHECK-NEXT: %[[OFF2:.*]] = llvm.mlir.constant([[SEEDAT]] : i64) : i64
  // CHECK-NEXT: %[[IN:.*]] = llvm.getelementptr %[[ARENA]][%[[OFF2]]]
  // CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[SLOT:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_scale_by(%[[OUT]], %[[IN]], %[[N2]], %[[SLOT]]) : (!llvm.ptr, !llvm.ptr, i64, i32) -> ()
  %seed = tfm.fill 1.0 times %ls {tfm.backward_begins} : tensor<f32>
  // A fill without `times` is not scaled.
  // CHECK: llvm.call @sprt_fill_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, f64) -> ()
  // CHECK-NOT: sprt_op_scale
  // CHECK: llvm.call @sprt_op_sum_squares
  %g = tfm.fill 2.0 : tensor<8xf32>
  %sumsq = tfm.sum_squares %g : tensor<8xf32> -> tensor<f32>
  // CHECK: %[[CLIP:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
  %clip = tfm.hyperparameter grad_clip default 1.0
  // No constant stands in for the loss scale: its slot, 0.
  // CHECK-NOT: llvm.mlir.constant({{.*}} : f64)
  // CHECK: %[[SLOT2:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: llvm.call @sprt_op_clip_scale_by(%{{.*}}, %[[CLIP]], %[[SLOT2]], %{{.*}}, %{{.*}}) : (!llvm.ptr, f64, i32, !llvm.ptr, !llvm.ptr) -> ()
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip loss_scale %ls
      : tensor<f32> -> tensor<f32>, tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %norm, %g : tensor<f32>, tensor<f32>, tensor<8xf32>
}
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json("{{.*}}\22hyperparameters\22:[{\22default\22:65536,\22name\22:\22loss_scale\22},{\22default\22:1,\22name\22:\22grad_clip\22},{{.*}}\22precision\22:\22f16\22{{.*}}\00")

// -----

// bf16 master weights: the precision recorded, no loss scale.
module attributes {tfm.precision = "bf16"} {
tfm.param @w : tensor<8xf32> init ones
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 2.0 : tensor<8xf32>
  %sumsq = tfm.sum_squares %g : tensor<8xf32> -> tensor<f32>
  %clip = tfm.hyperparameter grad_clip default 1.0
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
      : tensor<f32> -> tensor<f32>, tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %norm, %g : tensor<f32>, tensor<f32>, tensor<8xf32>
}
}
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-NOT: sprt_op_scale
// CHECK: llvm.mlir.global external constant @seqpar_model_json("{{.*}}\22precision\22:\22bf16\22{{.*}}\00")

// -----

// An f32 model records no precision.
tfm.param @w : tensor<8xf32> init ones
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 2.0 : tensor<8xf32>
  %sumsq = tfm.sum_squares %g : tensor<8xf32> -> tensor<f32>
  %clip = tfm.hyperparameter grad_clip default 1.0
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
      : tensor<f32> -> tensor<f32>, tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %norm, %g : tensor<f32>, tensor<f32>, tensor<8xf32>
}
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK: llvm.mlir.global external constant @seqpar_model_json(
// CHECK-NOT: precision
// CHECK-SAME: \00")
