// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.linear_grad_weight_bias is one call, sprt_linear_grad_weight_bias_typed
// (x, x's code, dy, dy's code, dw, dw's code, db, db's code, M, K, N,
// weight_in_out) (sprt/abi.def: f32 0, bf16 1), f32 programs included.
// CHECK-DAG: llvm.func @sprt_linear_grad_weight_bias_typed(!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32)
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  %dy = tfm.fill 2.0 : tensor<8x2x24xf32>
  %xb = tfm.convert %x : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %dyb = tfm.convert %dy : tensor<8x2x24xf32> -> tensor<8x2x24xbf16>
  // bf16 dw [8, 24] (in_out) and an f32 db of bf16 dy: M = 16 rows, K = 8,
  // N = 24.
  // CHECK: llvm.call @sprt_convert
  // CHECK: llvm.call @sprt_convert
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK-NEXT: llvm.mlir.constant({{[0-9]+}} : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: %[[XB:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant({{[0-9]+}} : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: %[[DYB:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant({{[0-9]+}} : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: %[[DWB:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant({{[0-9]+}} : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: %[[DBF:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(24 : i64) : i64
  // CHECK-NEXT: %[[INOUT:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_linear_grad_weight_bias_typed(%{{.*}}, %[[XB]], %{{.*}}, %[[DYB]], %{{.*}}, %[[DWB]], %{{.*}}, %[[DBF]], %[[M]], %[[K]], %[[N]], %[[INOUT]])
  %dw, %db = tfm.linear_grad_weight_bias %xb, %dyb weight_layout in_out : (tensor<8x2x8xbf16>, tensor<8x2x24xbf16>) -> (tensor<8x24xbf16>, tensor<24xf32>)
  // f32, dw [24, 8] (out_in).
  // CHECK: llvm.mlir.constant(24 : i64) : i64
  // CHECK-NEXT: %[[OUTIN:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_linear_grad_weight_bias_typed({{.*}}, %[[OUTIN]])
  %dv, %dc = tfm.linear_grad_weight_bias %x, %dy : (tensor<8x2x8xf32>, tensor<8x2x24xf32>) -> (tensor<24x8xf32>, tensor<24xf32>)
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
