// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.relu and tfm.relu_grad are one call each: relu(in, out, n) and
// relu_grad(dy, x, dx, n), n the local element count.
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  // CHECK: %[[N:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_relu_f32(%{{.*}}, %{{.*}}, %[[N]]) : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %y = tfm.relu %x : tensor<8x2x8xf32>
  // CHECK: %[[M:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_relu_grad_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
  %dx = tfm.relu_grad %y, %x : tensor<8x2x8xf32>
  // CHECK: llvm.func @sprt_relu_f32(!llvm.ptr, !llvm.ptr, i64)
  // CHECK: llvm.func @sprt_relu_grad_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
