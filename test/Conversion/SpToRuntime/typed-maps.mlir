// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime -cse | FileCheck %s

// The elementwise maps (MapsElementsAsStored) on bf16 / f16 tensors call
// their typed kernels with the tensors' dtype code last (bf16 1, f16 2);
// on f32 tensors the f32 kernels, unchanged. (-cse leaves one constant of
// each value.)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x16xf32>
  %b = tfm.convert %x : tensor<8x16xf32> -> tensor<8x16xbf16>
  %h = tfm.convert %x : tensor<8x16xf32> -> tensor<8x16xf16>
  // The tanh flag, then bf16's code.
  // CHECK: llvm.call @sprt_gelu_typed(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE]], %[[ONE]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i32) -> ()
  %g = tfm.gelu %b approximate tanh : tensor<8x16xbf16>
  // CHECK: llvm.call @sprt_add_typed(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32) -> ()
  %a = tfm.add %g, %b : tensor<8x16xbf16>
  // CHECK: llvm.call @sprt_silu_typed(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[TWO]]) : (!llvm.ptr, !llvm.ptr, i64, i32) -> ()
  %s = tfm.silu %h : tensor<8x16xf16>
  // CHECK: llvm.call @sprt_relu_typed(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[TWO]])
  %r = tfm.relu %s : tensor<8x16xf16>
  // CHECK: llvm.call @sprt_mul_typed(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[TWO]])
  %m = tfm.mul %r, %h : tensor<8x16xf16>
  // Dropout's layout-aware entry point, the dtype after its stream.
  // CHECK: llvm.call @sprt_op_dropout_typed({{.*}}, %[[TWO]]) : (!llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i32, i32, i32, i32, f64, i64, i32) -> ()
  %d = tfm.dropout %m rate 0.1 stream 3 : tensor<8x16xf16>
  // CHECK: llvm.call @sprt_mul_f32(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
  %f = tfm.mul %x, %x : tensor<8x16xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
