// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.relu and tfm.relu_grad are one call each: relu(x, y, n) and
// relu_grad(dy, x, dx, n), n the element count, buffers in the arena.
// CHECK-DAG: llvm.func @sprt_relu_f32(!llvm.ptr, !llvm.ptr, i64)
// CHECK-DAG: llvm.func @sprt_relu_grad_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  // CHECK: llvm.call @sprt_fill_f32
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  // relu(x at arena byte 0, y at 512, 128 elements)
  // CHECK: %[[XO:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[X:.*]] = llvm.getelementptr %[[ARENA]][%[[XO]]]
  // CHECK-NEXT: %[[YO:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[Y:.*]] = llvm.getelementptr %[[ARENA]][%[[YO]]]
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_relu_f32(%[[X]], %[[Y]], %[[N]]) : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %y = tfm.relu %x : tensor<8x2x8xf32>
  // relu_grad(dy = y at 512, x at 0, dx at 1024, 128 elements)
  // CHECK: %[[DYO:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[DY:.*]] = llvm.getelementptr %[[ARENA]][%[[DYO]]]
  // CHECK-NEXT: %[[XO2:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[X2:.*]] = llvm.getelementptr %[[ARENA]][%[[XO2]]]
  // CHECK-NEXT: %[[DXO:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK-NEXT: %[[DX:.*]] = llvm.getelementptr %[[ARENA]][%[[DXO]]]
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_relu_grad_f32(%[[DY]], %[[X2]], %[[DX]], %[[M]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
  %dx = tfm.relu_grad %y, %x : tensor<8x2x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
