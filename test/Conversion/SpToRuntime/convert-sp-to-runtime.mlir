// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// A sequence-parallel block: every op becomes one call on arena buffers
// (64-byte aligned offsets), parameters come from the table, the loss is
// stored through the last argument, and the model description is exported.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
tfm.param @emb : tensor<64x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @ln : tensor<8xf32> init ones
tfm.param @fc : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(1.000000e-02)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr, %[[PARAMS:[^:]*]]: !llvm.ptr, %[[IDS:[^:]*]]: !llvm.ptr, %[[LABELS:[^:]*]]: !llvm.ptr, %[[SCALARS:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr)
func.func @forward(%ids: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32> attributes {tfm.forward} {
  // Parameter 0's pointer, loaded from the table once.
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[SLOT:.*]] = llvm.getelementptr %[[PARAMS]][%[[ZERO]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
  // CHECK-NEXT: %[[EMB:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
  %e = tfm.get_param @emb : tensor<32x8xf32, #dist.layout<@mesh, tp = S(0)>>
  // The vocabulary is split over mesh axis 1 (tp).
  // CHECK: %[[X:.*]] = llvm.getelementptr %[[ARENA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  // CHECK: %[[T:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK-NEXT: %[[V:.*]] = llvm.mlir.constant(32 : i64) : i64
  // CHECK-NEXT: %[[H:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[AX:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_embedding(%[[IDS]], %[[EMB]], %[[X]], %[[T]], %[[V]], %[[H]], %[[AX]])
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<32x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = P>>
  // Along the first dimension the blocks are contiguous: no workspace.
  // CHECK: %[[NOWS:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK-NEXT: %[[NOBYTES:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_reduce_scatter_f32({{.*}}, %[[NOWS]], %[[NOBYTES]]) : (!llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i64, i32, i32, i32, !llvm.ptr, i64) -> ()
  %s = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  %w = tfm.get_param @ln : tensor<8xf32>
  // CHECK: llvm.call @sprt_rms_norm_f32
  %n = tfm.rms_norm %s, %w eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  // Dropout on a [2, 1, 8] shard split over tp on dim 0 and dp on dim 1.
  // CHECK: %[[A0:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[A1:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[A2:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK: llvm.call @sprt_op_dropout({{.*}}, %[[A0]], %[[A1]], %[[A2]], {{.*}}) : (!llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i32, i32, i32, i32, f64, i64) -> ()
  %d = tfm.dropout %n rate 1.000000e-01 stream 4 : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  // CHECK: llvm.call @sprt_all_gather({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i32, i64, i64, i64, i64, i32, i32, i32, !llvm.ptr, i64) -> ()
  %g = dist.all_gather %d on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
  %f = tfm.get_param @fc : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  // CHECK: llvm.call @sprt_linear_f32({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32) -> ()
  %h = tfm.linear %g, %f : (tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
  // CHECK: llvm.call @sprt_logits_max_f32
  %m = tfm.logits_max %h : tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>>
  // CHECK: %[[MAXKIND:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.call @sprt_all_reduce_f32({{.*}}, %[[MAXKIND]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i32, i32) -> ()
  %mx = dist.all_reduce %m on @mesh["tp"] max : tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>
  // CHECK: llvm.call @sprt_logits_sumexp_f32
  %se = tfm.logits_sumexp %h, %mx : tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>, tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>>
  %ser = dist.all_reduce %se on @mesh["tp"] sum : tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>
  // CHECK: llvm.call @sprt_op_label_logit
  %z = tfm.label_logit %h, %labels ignore_index -100 : tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>, tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>>
  %zr = dist.all_reduce %z on @mesh["tp"] sum : tensor<4x1xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>
  // CHECK: llvm.call @sprt_cross_entropy_from_stats_f32
  %l = tfm.cross_entropy_from_stats %mx, %ser, %zr, %labels ignore_index -100 : tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x1xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
  // The replicas' mean: kind 3 over mesh axis 0 (dp).
  // CHECK: %[[MEAN:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: %[[DP:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_all_reduce_f32({{.*}}, %[[MEAN]], %[[DP]])
  %r = dist.all_reduce %l on @mesh["dp"] mean : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  // The loss is scalar 0 of the step's outputs, copied from device memory.
  // CHECK: %[[I0:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[SLOT:.*]] = llvm.getelementptr %[[SCALARS]][%[[I0]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK: llvm.call @sprt_copy_scalar_to_host(%[[SLOT]], %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
  // The return's trace span ends (trace.mlir).
  // CHECK-NEXT: llvm.call @sprt_trace_end() : () -> ()
  // CHECK-NEXT: llvm.return
  return %r : tensor<f32>
}
// The parameters, mesh and source function are gone; their description is
// exported for the runtime (each parameter with its element type, the dtype
// the runtime stores, loads and dumps it in).
// CHECK-NOT: tfm.
// CHECK-NOT: dist.
// CHECK: llvm.mlir.global external constant @seqpar_model_json("{{.*}}\22batch\22:2,\22batch_axis\22:0,{{.*}}\22mesh\22:{\22axes\22:[\22dp\22,\22tp\22],\22sizes\22:[2,2]}{{.*}}\22dtype\22:\22F32\22,\22init\22:\22normal\22,\22local_shape\22:[32,8],\22name\22:\22emb\22,\22shape\22:[64,8],\22splits\22:[{\22axis\22:1,\22blocks\22:1,\22dim\22:0}]{{.*}}\22seq\22:4,\22vocab\22:64,\22workspace_bytes\22:0}\00")

