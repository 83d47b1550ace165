// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// ZeRO-1 over the data and context axes: an update whose gradient is
// S(0) over both ("replica", axis 0, outer; "seq", axis 1, inner) passes
// both axes to the kernel (slice coord(0) * size(1) + coord(1)); one over
// the data axis alone passes (0, -1); an unsliced one (-1, -1). The gather
// within the data axis's block passes that axis (0), the outer gather -1.
// The model description gives each gradient's axes: [0, 1], 0, -1.
dist.mesh @mesh ["replica" = 2, "seq" = 2] roles [data, context]
tfm.param @w : tensor<8x4xf32> init ones
tfm.param @b : tensor<6xf32> init ones
tfm.param @c : tensor<3xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @train_step(%ids: tensor<4x2xi64, #dist.layout<@mesh, replica = S(1), seq = S(0, zigzag)>>, %labels: tensor<4x2xi64, #dist.layout<@mesh, replica = S(1), seq = S(0, zigzag)>>)
    -> (tensor<f32>, tensor<f32>, tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>> {tfm.grad_of = @w}, tensor<3xf32, #dist.layout<@mesh, replica = S(0)>> {tfm.grad_of = @b}, tensor<3xf32> {tfm.grad_of = @c})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>, tfm.zero} {
  %w = tfm.get_param @w : tensor<8x4xf32>
  %b = tfm.get_param @b : tensor<6xf32>
  %c = tfm.get_param @c : tensor<3xf32>
  %loss = tfm.fill 1.0 : tensor<f32>
  %gw = tfm.fill 2.0 : tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>
  %gb = tfm.fill 2.0 : tensor<3xf32, #dist.layout<@mesh, replica = S(0)>>
  %gc = tfm.fill 2.0 : tensor<3xf32>
  %sumsq = tfm.sum_squares %gc : tensor<3xf32> -> tensor<f32>
  %clip = tfm.hyperparameter grad_clip default 1.0
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
      : tensor<f32> -> tensor<f32>, tensor<f32>
  %lr = tfm.hyperparameter lr default 0.25
  %wd = tfm.hyperparameter weight_decay default 0.0
  // CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[O:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_sgd(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z]], %[[O]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, f64, i32, i32) -> ()
  tfm.sgd_update @w, %gw scale %scale lr %lr weight_decay %wd
      : tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>, tensor<f32>
  // CHECK: %[[Z2:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_sgd(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z2]], %[[N2]])
  tfm.sgd_update @b, %gb scale %scale lr %lr weight_decay %wd
      : tensor<3xf32, #dist.layout<@mesh, replica = S(0)>>, tensor<f32>
  // CHECK: %[[N3:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[N4:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_sgd(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[N3]], %[[N4]])
  tfm.sgd_update @c, %gc scale %scale lr %lr weight_decay %wd
      : tensor<3xf32>, tensor<f32>
  // The cp slices of this rank's dp block (16 elements), then the blocks
  // (32).
  // CHECK: %[[N16:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[B4:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK-NEXT: %[[SEQ:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[REP:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_all_gather_param(%{{.*}}, %[[N16]], %[[B4]], %[[SEQ]], %[[REP]]) : (!llvm.ptr, i64, i64, i32, i32) -> ()
  dist.all_gather_param @w on @mesh["seq"] within "replica" : tensor<4x4xf32>
  // CHECK: %[[N32:.*]] = llvm.mlir.constant(32 : i64) : i64
  // CHECK-NEXT: %[[B4b:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK-NEXT: %[[REP2:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[NONE:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_all_gather_param(%{{.*}}, %[[N32]], %[[B4b]], %[[REP2]], %[[NONE]])
  dist.all_gather_param @w on @mesh["replica"] : tensor<8x4xf32>
  dist.all_gather_param @b on @mesh["replica"] : tensor<6xf32>
  return %loss, %norm, %gw, %gb, %gc : tensor<f32>, tensor<f32>, tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>, tensor<3xf32, #dist.layout<@mesh, replica = S(0)>>, tensor<3xf32>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json("{{.*}}\22grad_shard_axes\22:{{\[}}[0,1],0,-1],\22grads\22:[0,1,2],
