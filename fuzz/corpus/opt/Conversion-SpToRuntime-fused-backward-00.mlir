// RUN: sp-opt %s -sp-plan-buffers | FileCheck %s --check-prefix=PLAN
// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime | FileCheck %s

// The backward's fused collective GEMMs. dist.all_gather_matmul_grad_weight
// of two GEMMs is one call: the input, the number of GEMMs, stack arrays of
// the dys, of the weight gradients and of the dys' element counts, the
// rows of this rank's block (8 x 2 = 16) and its features (8), the layout
// flag, the chunks and the axis, then the workspace: min(chunks, 2) chunks
// of the gathered input (32 x 8 f32 = 1024 bytes; 512 with 4 chunks),
// planned in the arena (dist.workspace_offset), arena + offset and the
// bytes the last two arguments. The
// input gradient is a dist.matmul_reduce_scatter (in_out reading the
// [out, in] weight): sprt_linear_reduce_scatter_f32 with the flag 1.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<6x8xf32> init ones
// PLAN: dist.all_gather_matmul_grad_weight {{.*}} chunks 2 {dist.arena_offsets = array<i64: 3072, 3264>, dist.workspace_offset = 0 : i64}
// PLAN: dist.all_gather_matmul_grad_weight {{.*}} chunks 4 {dist.arena_offsets = array<i64: 512, 704>, dist.workspace_offset = 0 : i64}
// PLAN: dist.matmul_reduce_scatter {{.*}} chunks 4 weight_layout in_out {dist.arena_offsets = array<i64: 0>, dist.workspace_offset = 512 : i64}
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  %dy = tfm.fill 1.0 : tensor<16x2x6xf32>
  %dz = tfm.fill 1.0 : tensor<16x2x6xf32>
  %w = tfm.get_param @w : tensor<6x8xf32>
  // CHECK: %[[N:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[DYS:.*]] = llvm.alloca %[[N]] x !llvm.ptr
  // CHECK: %[[DWS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
  // CHECK: %[[SIZES:.*]] = llvm.alloca %{{.*}} x i64
  // The two dys' element counts, then the workspace.
  // CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr
  // CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[W1:.*]] = llvm.getelementptr %[[ARENA]][%[[O1]]]
  // CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK: %[[COUNT:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: %[[ROWS:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[OUTIN:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[AXIS:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_all_gather_linear_grad_weight_f32(%{{.*}}, %[[COUNT]], %[[DYS]], %[[DWS]], %[[SIZES]], %[[ROWS]], %[[K]], %[[OUTIN]], %[[C2]], %[[AXIS]], %[[W1]], %[[B1]]) : (!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %a:2 = dist.all_gather_matmul_grad_weight %x, %dy, %dz on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xf32>, tensor<16x2x6xf32>, tensor<16x2x6xf32>) -> (tensor<6x8xf32>, tensor<6x8xf32>)
  // CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr
  // CHECK-NEXT: llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: llvm.getelementptr %[[ARENA]]
  // CHECK-NEXT: %[[B4:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_linear_grad_weight_f32({{.*}}, %[[B4]])
  %b:2 = dist.all_gather_matmul_grad_weight %x, %dy, %dz on @mesh["tp"] dim 0 chunks 4 : (tensor<8x2x8xf32>, tensor<16x2x6xf32>, tensor<16x2x6xf32>) -> (tensor<6x8xf32>, tensor<6x8xf32>)
  // dx = dy W: 8 x 2 rows of this rank's block, K = 6 (dy's features), N = 8,
  // in_out; the workspace two chunks of partial sums: 2 x 2 x 4 x 8 f32.
  // CHECK: %[[OS:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[WS:.*]] = llvm.getelementptr %[[ARENA]][%[[OS]]]
  // CHECK-NEXT: %[[BS:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK: %[[RS_ROWS:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[RS_K:.*]] = llvm.mlir.constant(6 : i64) : i64
  // CHECK-NEXT: %[[RS_N:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[INOUT:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK: llvm.call @sprt_linear_reduce_scatter_f32({{.*}}, %[[RS_ROWS]], %[[RS_K]], %[[RS_N]], %[[INOUT]], %[[C4]], %{{.*}}, %[[WS]], %[[BS]])
  %dx = dist.matmul_reduce_scatter %dy, %w on @mesh["tp"] dim 0 chunks 4 weight_layout in_out : (tensor<16x2x6xf32>, tensor<6x8xf32>) -> tensor<8x2x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: workspace_bytes\22:1024
