// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// An async bucket (sp-overlap-grad-reductions) is started where it stands,
// by the `_start` form that returns a handle, and waited for (sprt_wait)
// right before the calls of the first op reading one of its results; the
// ops between run meanwhile.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK: %[[H:.*]] = llvm.call @sprt_all_reduce_coalesced_start({{.*}}) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, !llvm.ptr, i64) -> i64
// CHECK-NOT: sprt_wait
// CHECK: llvm.call @sprt_op_scale(
// CHECK-NOT: sprt_wait
// CHECK: llvm.call @sprt_wait(%[[H]]) : (i64) -> ()
// CHECK-NOT: llvm.call
// CHECK: llvm.call @sprt_trace_begin(
// CHECK-NOT: llvm.call
// CHECK: llvm.call @sprt_op_sum_squares(
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>)
    -> (tensor<f32>, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %w = tfm.get_param @w : tensor<8xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 2.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce_coalesced %g on @mesh["dp"] sum async
      : (tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> tensor<8xf32>
  %x = tfm.scale %w by 2.0 : tensor<8xf32>
  %n = tfm.sum_squares %r : tensor<8xf32> -> tensor<f32>
  %scale = tfm.fill 1.0 : tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  tfm.sgd_update @w, %r scale %scale lr %lr weight_decay %wd
      : tensor<8xf32>, tensor<f32>
  return %loss, %r : tensor<f32>, tensor<8xf32>
}
