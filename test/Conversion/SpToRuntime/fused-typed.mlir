// RUN: sp-opt %s -split-input-file -sp-plan-buffers -convert-sp-to-runtime -verify-diagnostics | FileCheck %s

// Fused collective GEMMs with bf16 / f16 weights read every tensor as
// stored (StoragePrecisionOpInterface): the _typed entry points, each
// pointer followed by its dtype code (f32 0, bf16 1, f16 2; 0 for an
// absent bias). Workspaces: all_gather_matmul's 2 chunks x 2 ranks x 4 x 2
// rows x 8 in bf16 = 512 bytes, nothing widened; matmul_reduce_scatter's f32
// partial sums, 2 chunks x 2 ranks x 4 x 2 rows x 8 x 4 = 1024 bytes, plus
// the bf16 bias widened, 8 x 4 = 32: 1056, the largest.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<16x8xbf16> init ones
tfm.param @b : tensor<16xbf16> init ones
tfm.param @c : tensor<8xbf16> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x8xf32>
  %x = tfm.convert %x32 : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %w = tfm.get_param @w : tensor<16x8xbf16>
  %b = tfm.get_param @b : tensor<16xbf16>
  %c = tfm.get_param @c : tensor<8xbf16>
  // CHECK: %[[B:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK: %[[X:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[W:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[BD:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[Y:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: llvm.call @sprt_all_gather_linear_typed(%{{.*}}, %[[X]], %{{.*}}, %[[W]], %{{.*}}, %[[BD]], %{{.*}}, %[[Y]], {{.*}}, %[[B]]) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %y = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16>) -> tensor<16x2x16xf16>
  // The row-parallel GEMM: its result is the f32 sum (no dtype code).
  // CHECK: %[[RB:.*]] = llvm.mlir.constant(1056 : i64) : i64
  // CHECK: %[[RX:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: llvm.call @sprt_linear_reduce_scatter_typed(%{{.*}}, %[[RX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, {{.*}}, %[[RB]]) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i64, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %z = dist.matmul_reduce_scatter %y, %w, %c on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<16x2x16xf16>, tensor<16x8xbf16>, tensor<8xbf16>) -> tensor<8x2x8xf32>
  // The weight gradients: the input's code after it, the dys' after the
  // dys' pointer array; f32 results.
  // CHECK: llvm.call @sprt_all_gather_linear_grad_weight_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, {{.*}}) : (!llvm.ptr, i32, i32, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %dw = dist.all_gather_matmul_grad_weight %x, %y on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xbf16>, tensor<16x2x16xf16>) -> tensor<16x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: workspace_bytes\22:1056

// -----

// The kernel writes the reduce-scattered sum in f32: a bf16 result must be
// made f32 (and rounded after the op) by sp-legalize-precision.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<8x8xbf16> init ones
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  %w = tfm.get_param @w : tensor<8x8xbf16>
  // expected-error @+1 {{uses 'bf16', which the runtime computes in f32: run sp-legalize-precision first}}
  %z = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<8x8xbf16>) -> tensor<4x2x8xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// dist.all_gather_matmul_gelu: sprt_all_gather_linear_gelu_typed, each
// operand followed by its dtype code, then pre (null where nothing reads
// it), the result and its code, the rows of this rank's block, K, N,
// weight_in_out, tanh, the chunks, the axis and all_gather_matmul's
// workspace (2 chunks x 2 ranks x 4 x 2 rows x 8 in bf16 = 512 bytes).
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<8x16xbf16> init ones
tfm.param @b : tensor<16xbf16> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x8xf32>
  %x = tfm.convert %x32 : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %w = tfm.get_param @w : tensor<8x16xbf16>
  %b = tfm.get_param @b : tensor<16xbf16>
  // CHECK: %[[WS:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK: %[[BF:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[ROWS:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK: %[[K:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK: %[[N:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK: %[[IO:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[TANH:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[CH:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK: llvm.call @sprt_all_gather_linear_gelu_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PRE:[^,]*]], %{{.*}}, %{{.*}}, %[[ROWS]], %[[K]], %[[N]], %[[IO]], %[[TANH]], %[[CH]], %{{.*}}, %{{.*}}, %[[WS]]) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i32, i32, i64, i32, !llvm.ptr, i64) -> ()
  %pre, %y = dist.all_gather_matmul_gelu %x, %w, %b on @mesh["tp"] dim 0 chunks 2 weight_layout in_out approximate tanh : (tensor<8x2x8xbf16>, tensor<8x16xbf16>, tensor<16xbf16>) -> (tensor<16x2x16xbf16>, tensor<16x2x16xbf16>)
  // Nothing reads this one's pre: a null pointer; the exact GELU.
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: %[[NONE:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: llvm.call @sprt_all_gather_linear_gelu_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NONE]],
  %q, %z = dist.all_gather_matmul_gelu %x, %w, %b on @mesh["tp"] dim 0 chunks 2 weight_layout in_out approximate none : (tensor<8x2x8xbf16>, tensor<8x16xbf16>, tensor<16xbf16>) -> (tensor<16x2x16xbf16>, tensor<16x2x16xbf16>)
  %s = tfm.add %pre, %y : tensor<16x2x16xbf16>
  %t = tfm.add %s, %z : tensor<16x2x16xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
