// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime -cse | FileCheck %s

// The GEMMs of a bf16 program read and write their tensors as stored
// (StoragePrecisionOpInterface): each pointer is followed by its tensor's
// element type (SPRT_DTYPE_F32 = 0, BF16 = 1) in a call of the typed
// kernel; an all-f32 GEMM calls the f32 kernel as before. The weight
// gradient's last argument 0 overwrites dw. (-cse leaves one constant of
// each value.)
tfm.param @w : tensor<16x8xf32> init ones
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-DAG: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x8xf32>
  %x = tfm.convert %x32 : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %w32 = tfm.get_param @w : tensor<16x8xf32>
  %w = tfm.convert %w32 : tensor<16x8xf32> -> tensor<16x8xbf16>
  %b = tfm.fill 0.5 : tensor<16xf32>
  // CHECK: llvm.call @sprt_linear_typed(%[[X:[0-9]+]], %[[BF16]], %[[W:[0-9]+]], %[[BF16]], %{{[0-9]+}}, %[[F32]], %[[Y:[0-9]+]], %[[BF16]], {{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32) -> ()
  %y = tfm.linear %x, %w, %b : (tensor<8x2x8xbf16>, tensor<16x8xbf16>, tensor<16xf32>) -> tensor<8x2x16xbf16>
  // Without a bias: a null pointer (its dtype argument is 0).
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: llvm.call @sprt_linear_typed(%[[X]], %[[BF16]], %[[W]], %[[BF16]], %[[NULL]], %[[F32]], %[[Y2:[0-9]+]], %[[F32]], {{.*}})
  %y2 = tfm.linear %x, %w : (tensor<8x2x8xbf16>, tensor<16x8xbf16>) -> tensor<8x2x16xf32>
  // CHECK: llvm.call @sprt_linear_grad_input_typed(%[[Y2]], %[[F32]], %[[W]], %[[BF16]], %[[DX:[0-9]+]], %[[BF16]], {{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32) -> ()
  %dx = tfm.linear_grad_input %y2, %w : (tensor<8x2x16xf32>, tensor<16x8xbf16>) -> tensor<8x2x8xbf16>
  // CHECK: llvm.call @sprt_linear_grad_weight_typed(%[[DX]], %[[BF16]], %[[Y]], %[[BF16]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[F32]]) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32, i32) -> ()
  %dw = tfm.linear_grad_weight %dx, %y : (tensor<8x2x8xbf16>, tensor<8x2x16xbf16>) -> tensor<16x8xf32>
  // An all-f32 GEMM calls the f32 kernel.
  // CHECK: llvm.call @sprt_linear_f32({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32) -> ()
  %y3 = tfm.linear %x32, %w32 : (tensor<8x2x8xf32>, tensor<16x8xf32>) -> tensor<8x2x16xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
