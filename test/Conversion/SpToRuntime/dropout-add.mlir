// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.dropout_add is one call, sprt_op_dropout_add_typed(x, residual, y,
// then tfm.dropout's arguments: rank, the local shape, the mesh axes
// splitting each dimension (-1: none), the zigzag axis of dim 0, rate and
// stream), then the element type's code (sprt/abi.def: f32 0, bf16 1).
// CHECK-DAG: llvm.func @sprt_op_dropout_add_typed(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i32, i32, i32, i32, f64, i64, i32)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[HYPER:[^:]*]]: !llvm.ptr)
// The step's values go to the device with no hyperparameters too: the
// dropout kernels read the step's salt there.
// CHECK: %[[N:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: llvm.call @sprt_upload_step_values(%[[HYPER]], %[[N]]) : (!llvm.ptr, i64) -> ()
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  %r = tfm.fill 2.0 : tensor<8x2x8xf32>
  // x at arena byte 0, the residual at 512, y at 1024.
  // CHECK: llvm.call @sprt_fill_f32
  // CHECK: llvm.call @sprt_fill_f32
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK-NEXT: %[[XO:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[X:.*]] = llvm.getelementptr %[[ARENA]][%[[XO]]]
  // CHECK-NEXT: %[[RO:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[R:.*]] = llvm.getelementptr %[[ARENA]][%[[RO]]]
  // CHECK-NEXT: %[[YO:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK-NEXT: %[[Y:.*]] = llvm.getelementptr %[[ARENA]][%[[YO]]]
  // CHECK-NEXT: %[[RANK:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[D1:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[D2:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[A0:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[A1:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[A2:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[RATE:.*]] = llvm.mlir.constant(1.000000e-01 : f64) : f64
  // CHECK-NEXT: %[[STREAM:.*]] = llvm.mlir.constant(7 : i64) : i64
  // CHECK-NEXT: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_dropout_add_typed(%[[X]], %[[R]], %[[Y]], %[[RANK]], %[[D0]], %[[D1]], %[[D2]], %[[A0]], %[[A1]], %[[A2]], %[[Z]], %[[RATE]], %[[STREAM]], %[[F32]])
  %y = tfm.dropout_add %x, %r rate 1.0e-01 stream 7 : tensor<8x2x8xf32>
  // A bf16 one passes code 1 (after stream 8).
  // CHECK: llvm.mlir.constant(1.000000e-01 : f64) : f64
  // CHECK-NEXT: llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_dropout_add_typed({{.*}}, %[[BF16]])
  %xb = tfm.convert %x : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %yb = tfm.dropout_add %xb, %xb rate 1.0e-01 stream 8 : tensor<8x2x8xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
