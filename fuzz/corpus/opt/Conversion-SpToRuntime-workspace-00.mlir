// RUN: sp-opt %s -sp-plan-buffers | FileCheck %s --check-prefix=PLAN
// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime | FileCheck %s

// The fused GEMM's workspace is min(chunks, 2) chunks of the gathered
// input (16 x 2 x 8 f32 = 1024 bytes): 1024 bytes with 1 and 2 chunks, 512
// with 4, 256 with 8. The lowering passes arena + the planned offset and
// the bytes as the call's last two arguments; the model JSON carries the
// largest workspace.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<16x8xf32> init ones
// PLAN: dist.all_gather_matmul {{.*}} chunks 1 {dist.arena_offsets = array<i64: 0>, dist.workspace_offset = 2048 : i64}
// PLAN: dist.all_gather_matmul {{.*}} chunks 2 {dist.arena_offsets = array<i64: 0>, dist.workspace_offset = 2048 : i64}
// PLAN: dist.all_gather_matmul {{.*}} chunks 4 {dist.arena_offsets = array<i64: 0>, dist.workspace_offset = 2048 : i64}
// PLAN: dist.all_gather_matmul {{.*}} chunks 8 {dist.arena_offsets = array<i64: 0>, dist.workspace_offset = 2048 : i64}
// The results are never read: each lives at its op only, at 0, next to
// the workspace every call reuses.
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  %w = tfm.get_param @w : tensor<16x8xf32>
  // CHECK: %[[O1:.*]] = llvm.mlir.constant(2048 : i64) : i64
  // CHECK-NEXT: %[[W1:.*]] = llvm.getelementptr %[[ARENA]][%[[O1]]]
  // CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_linear_f32({{.*}}, %[[W1]], %[[B1]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %y1 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32>
  // CHECK: llvm.getelementptr %[[ARENA]]
  // CHECK-NEXT: %[[B2:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_linear_f32({{.*}}, %[[B2]])
  %y2 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32>
  // CHECK: llvm.getelementptr %[[ARENA]]
  // CHECK-NEXT: %[[B4:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_linear_f32({{.*}}, %[[B4]])
  %y4 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 4 : (tensor<8x2x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32>
  // CHECK: llvm.getelementptr %[[ARENA]]
  // CHECK-NEXT: %[[B8:.*]] = llvm.mlir.constant(256 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_linear_f32({{.*}}, %[[B8]])
  %y8 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 8 : (tensor<8x2x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: arena_bytes\22:3584
// CHECK-SAME: workspace_bytes\22:1024
