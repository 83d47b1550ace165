// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.convert is one call: sprt_convert(in, in_dtype, out, out_dtype, n),
// the dtypes as the runtime's codes (0 f32, 1 bf16, 2 f16) and n the element
// count, buffers in the arena.
// CHECK-DAG: llvm.func @sprt_convert(!llvm.ptr, i32, !llvm.ptr, i32, i64)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  // CHECK: llvm.call @sprt_fill_f32
  %x = tfm.fill 1.0 : tensor<8x2x8xf32>
  // f32 (arena byte 0) -> bf16 (byte 512, after the 512 bytes of x), 128
  // elements.
  // CHECK: %[[XO:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[X:.*]] = llvm.getelementptr %[[ARENA]][%[[XO]]]
  // CHECK-NEXT: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[HO:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[H:.*]] = llvm.getelementptr %[[ARENA]][%[[HO]]]
  // CHECK-NEXT: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_convert(%[[X]], %[[F32]], %[[H]], %[[BF16]], %[[N]]) : (!llvm.ptr, i32, !llvm.ptr, i32, i64) -> ()
  %h = tfm.convert %x : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  // bf16 (512) -> f16 (768: bf16 takes 256 bytes).
  // CHECK: %[[HO2:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[H2:.*]] = llvm.getelementptr %[[ARENA]][%[[HO2]]]
  // CHECK-NEXT: %[[BF16B:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[YO:.*]] = llvm.mlir.constant(768 : i64) : i64
  // CHECK-NEXT: %[[Y:.*]] = llvm.getelementptr %[[ARENA]][%[[YO]]]
  // CHECK-NEXT: %[[F16:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_convert(%[[H2]], %[[BF16B]], %[[Y]], %[[F16]], %[[M]])
  %y = tfm.convert %h : tensor<8x2x8xbf16> -> tensor<8x2x8xf16>
  // f16 -> f32.
  // CHECK: %[[F16B:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: %[[F32B:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_convert(%{{.*}}, %[[F16B]], %{{.*}}, %[[F32B]], %[[K]])
  %z = tfm.convert %y : tensor<8x2x8xf16> -> tensor<8x2x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
