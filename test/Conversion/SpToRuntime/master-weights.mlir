// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// Sharded master weights: an update with `master` calls the master kernel
// with the parameter's f32 master slice (state table entry 2 * #params +
// index after AdamW's moments), the parameter's shard and its element type
// code (1: bf16); the parameter is gathered in bf16 (2-byte elements); the
// model description marks the parameter "master" and stores it as BF16.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @a : tensor<4xf32> init ones
tfm.param @w : tensor<4x8xbf16> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %[[PARAMS:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[STATE:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr)
// The table entries, loaded once at the entry: @w's moments (2, 3), its
// shard (parameter 1) and its master slice (2 * 2 + 1).
// CHECK: %[[I3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[E3:.*]] = llvm.getelementptr %[[STATE]][%[[I3]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[E3]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[I2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[E2:.*]] = llvm.getelementptr %[[STATE]][%[[I2]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[M:.*]] = llvm.load %[[E2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[PARAMS]][%[[I1]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[PARAM:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[I5:.*]] = llvm.mlir.constant(5 : i64) : i64
// CHECK-NEXT: %[[E5:.*]] = llvm.getelementptr %[[STATE]][%[[I5]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[MASTER:.*]] = llvm.load %[[E5]] : !llvm.ptr -> !llvm.ptr
func.func @train_step(%ids: tensor<4x2xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<4x2xi64, #dist.layout<@mesh, dp = S(1)>>)
    -> (tensor<f32>, tensor<f32>, tensor<4xf32> {tfm.grad_of = @a}, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<adamw>, tfm.zero} {
  %a = tfm.get_param @a : tensor<4xf32>
  %w = tfm.get_param @w : tensor<4x8xbf16>
  %loss = tfm.fill 1.0 : tensor<f32>
  %ga = tfm.fill 2.0 : tensor<4xf32>
  %gw = tfm.fill 2.0 : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>
  %sumsq = tfm.sum_squares %ga : tensor<4xf32> -> tensor<f32>
  %clip = tfm.hyperparameter grad_clip default 1.0
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
      : tensor<f32> -> tensor<f32>, tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.95
  %eps = tfm.hyperparameter eps default 1.0e-8
  %wd = tfm.hyperparameter weight_decay default 0.0
  // CHECK: llvm.call @sprt_op_adamw(
  tfm.adamw_update @a, %ga scale %scale lr %lr betas %beta1, %beta2 eps %eps weight_decay %wd
      : tensor<4xf32>, tensor<f32>
  // CHECK: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.call @sprt_op_adamw_master(%[[MASTER]], %[[PARAM]], %[[BF16]], %{{.*}}, %[[M]], %[[V]], {{.*}}) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, f64, f64, f64, f64, i32, i32) -> ()
  tfm.adamw_update @w, %gw master scale %scale lr %lr betas %beta1, %beta2 eps %eps weight_decay %wd
      : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<f32>
  // CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_param(%[[PARAM]], %{{.*}}, %[[TWO]], %{{.*}}, %{{.*}})
  dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xbf16>
  return %loss, %norm, %ga, %gw : tensor<f32>, tensor<f32>, tensor<4xf32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json("{{.*}}{\22dtype\22:\22F32\22,\22init\22:\22ones\22,\22local_shape\22:[4],\22name\22:\22a\22,{{.*}}{\22dtype\22:\22BF16\22,\22init\22:\22ones\22,\22local_shape\22:[4,8],\22master\22:true,\22name\22:\22w\22,
