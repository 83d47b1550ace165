// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime | FileCheck %s

// A bf16 input of an f32 all_gather_matmul (what sp-legalize-precision
// leaves for a bf16 model) is gathered in bf16 and widened by the runtime:
// the call is sprt_all_gather_linear_widened_f32 with the input's dtype
// (SPRT_DTYPE_BF16 = 1) after it. Its workspace: min(chunks, 2) chunks of
// the gathered input in bf16 (2 chunks x 2 ranks x 8 rows x 8 x 2 bytes =
// 512) and one chunk of every rank widened to f32 (2 x 8 x 8 x 4 = 512):
// 1024 bytes, the model's largest workspace (an f32 input would need 1024
// as well, and send twice the bytes). The weight gradient op likewise
// calls sprt_all_gather_linear_grad_weight_widened_f32.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<16x8xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x8xf32>
  %x = tfm.convert %x32 : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %w = tfm.get_param @w : tensor<16x8xf32>
  // CHECK: %[[B:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK: %[[DT:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.call @sprt_all_gather_linear_widened_f32(%{{.*}}, %[[DT]], {{.*}}, %[[B]]) : (!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xbf16>, tensor<16x8xf32>) -> tensor<16x2x16xf32>
  // CHECK: llvm.call @sprt_all_gather_linear_grad_weight_widened_f32(%{{.*}}, %{{.*}}, {{.*}}) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i32, i64, i32, !llvm.ptr, i64) -> ()
  %dw = dist.all_gather_matmul_grad_weight %x, %y on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xbf16>, tensor<16x2x16xf32>) -> tensor<16x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: workspace_bytes\22:1024
