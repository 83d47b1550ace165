// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// A train step's hyperparameters are inputs of the step: each
// tfm.hyperparameter loads its f64 from the table the runtime passes as the
// step's last argument (slots in the order the function reads them), the
// kernels take the loaded values, and the model description lists the slots
// with their compile-time defaults.
tfm.param @w : tensor<8xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[HYPER:[^:]*]]: !llvm.ptr)
// First the step's values go to the device: the table's 3 slots (and the
// optimizer's step count), which the update reads there.
// CHECK: %[[N:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: llvm.call @sprt_upload_step_values(%[[HYPER]], %[[N]]) : (!llvm.ptr, i64) -> ()
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 2.0 : tensor<8xf32>
  %sumsq = tfm.sum_squares %g : tensor<8xf32> -> tensor<f32>
  // CHECK: llvm.call @sprt_op_sum_squares
  // CHECK: %[[S0:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[A0:.*]] = llvm.getelementptr %[[HYPER]][%[[S0]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %[[CLIP:.*]] = llvm.load %[[A0]] : !llvm.ptr -> f64
  %clip = tfm.hyperparameter grad_clip default 1.0
  // The loss scale: 1 (no loss scaling).
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
  // CHECK: llvm.call @sprt_op_clip_scale(%{{.*}}, %[[CLIP]], %[[ONE]], %{{.*}}, %{{.*}}) : (!llvm.ptr, f64, f64, !llvm.ptr, !llvm.ptr) -> ()
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
      : tensor<f32> -> tensor<f32>, tensor<f32>
  // CHECK: %[[S1:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[A1:.*]] = llvm.getelementptr %[[HYPER]][%[[S1]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %[[LR:.*]] = llvm.load %[[A1]] : !llvm.ptr -> f64
  %lr = tfm.hyperparameter lr default 0.25
  // CHECK: %[[S2:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[A2:.*]] = llvm.getelementptr %[[HYPER]][%[[S2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %[[WD:.*]] = llvm.load %[[A2]] : !llvm.ptr -> f64
  %wd = tfm.hyperparameter weight_decay default 0.0
  // No constant stands in for a hyperparameter.
  // CHECK-NOT: llvm.mlir.constant({{.*}} : f64)
  // The learning rate by its slot (1), read on the device when the update
  // runs; the weight decay by value.
  // CHECK: %[[LRSLOT:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.call @sprt_op_sgd(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LRSLOT]], %[[WD]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, f64, i32, i32) -> ()
  tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %norm, %g : tensor<f32>, tensor<f32>, tensor<8xf32>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json("{{.*}}\22hyperparameters\22:[{\22default\22:1,\22name\22:\22grad_clip\22},{\22default\22:0.25,\22name\22:\22lr\22},{\22default\22:0,\22name\22:\22weight_decay\22}]{{.*}}\22optimizer\22:\22sgd\22{{.*}}\00")
