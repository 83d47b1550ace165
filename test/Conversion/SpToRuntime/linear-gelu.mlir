// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.linear_gelu is one call, sprt_linear_gelu_typed(x, x's code, w, w's
// code, bias or null, bias's code or 0, pre or null, y, y's code, M, K, N,
// weight_in_out, tanh) (sprt/abi.def: f32 0, bf16 1). pre is null where
// nothing reads it.
// tfm.linear_gelu_grad is sprt_linear_gelu_grad_typed(dy, dy's code, w, w's
// code, pre, dx, dx's code, dbias or null, dbias's code or 0, M, K, N,
// weight_in_out, tanh).
// CHECK-DAG: llvm.func @sprt_linear_gelu_typed(!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i32, i32)
// CHECK-DAG: llvm.func @sprt_linear_gelu_grad_typed(!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32, i32)
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  %w = tfm.fill 2.0 : tensor<8x16xf32>
  %b = tfm.fill 3.0 : tensor<16xf32>
  %xb = tfm.convert %x : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %wb = tfm.convert %w : tensor<8x16xf32> -> tensor<8x16xbf16>
  %bb = tfm.convert %b : tensor<16xf32> -> tensor<16xbf16>
  // bf16 with a bias, pre read by the GELU's gradient: every pointer (y at
  // arena byte 2176).
  // CHECK: llvm.mlir.constant(2176 : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[INOUT:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[TANH:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_linear_gelu_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PRE:[^,]*]], %{{.*}}, %[[BF16]], %[[M]], %[[K]], %[[N]], %[[INOUT]], %[[TANH]])
  // CHECK-NOT: llvm.mlir.zero
  %pre, %y = tfm.linear_gelu %xb, %wb, %bb weight_layout in_out approximate tanh : (tensor<8x2x8xbf16>, tensor<8x16xbf16>, tensor<16xbf16>) -> (tensor<8x2x16xbf16>, tensor<8x2x16xbf16>)
  %dx = tfm.gelu_grad %y, %pre approximate tanh : tensor<8x2x16xbf16>
  // f32 without a bias, pre unread, the exact GELU: null bias (code 0) and
  // null pre.
  // CHECK: %[[NOBIAS:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[NOPRE:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[OUTIN:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[ERF:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_linear_gelu_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NOBIAS]], %[[ZERO]], %[[NOPRE]], %{{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %{{.*}}, %[[OUTIN]], %[[ERF]])
  %w2 = tfm.fill 2.0 : tensor<16x8xf32>
  %pre2, %z = tfm.linear_gelu %x, %w2 approximate none : (tensor<8x2x8xf32>, tensor<16x8xf32>) -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>)
  // The backward with an f32 bias gradient of bf16 dx: M = 16 rows, K = 8,
  // N = 16.
  // CHECK: %[[F32B:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[GM:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[GK:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[GN:.*]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK-NEXT: %[[GIO:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[GT:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_linear_gelu_grad_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[F32B]], %[[GM]], %[[GK]], %[[GN]], %[[GIO]], %[[GT]])
  %gdx, %gdb = tfm.linear_gelu_grad %y, %wb, %xb weight_layout in_out approximate tanh : (tensor<8x2x16xbf16>, tensor<8x16xbf16>, tensor<8x2x8xbf16>) -> (tensor<8x2x8xbf16>, tensor<8xf32>)
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
