// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// tfm.swiglu is one call, sprt_swiglu_typed(gate, up, y, n, dtype), and
// tfm.swiglu_grad one, sprt_swiglu_grad_typed(dy, gate, up, dgate, dup, n,
// dtype): n the element count, dtype the type's code in every type, f32
// included (sprt/abi.def: f32 0, bf16 1), buffers in the arena.
// CHECK-DAG: llvm.func @sprt_swiglu_typed(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32)
// CHECK-DAG: llvm.func @sprt_swiglu_grad_typed(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %g = tfm.fill 1.0 : tensor<8x2x8xf32>
  %u = tfm.fill 2.0 : tensor<8x2x8xf32>
  // gate at arena byte 0, up at 512, y at 1024, 128 elements of f32.
  // CHECK: llvm.call @sprt_fill_f32
  // CHECK: llvm.call @sprt_fill_f32
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK-NEXT: %[[GO:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[G:.*]] = llvm.getelementptr %[[ARENA]][%[[GO]]]
  // CHECK-NEXT: %[[UO:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[U:.*]] = llvm.getelementptr %[[ARENA]][%[[UO]]]
  // CHECK-NEXT: %[[YO:.*]] = llvm.mlir.constant(1024 : i64) : i64
  // CHECK-NEXT: %[[Y:.*]] = llvm.getelementptr %[[ARENA]][%[[YO]]]
  // CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_swiglu_typed(%[[G]], %[[U]], %[[Y]], %[[N]], %[[F32]])
  %h = tfm.swiglu %g, %u : tensor<8x2x8xf32>
  %gb = tfm.convert %g : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %ub = tfm.convert %u : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %hb = tfm.convert %h : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  // bf16: dy (%hb) at 2048, gate (%gb) at 1536, up (%ub) at 1792, dgate at
  // 2304, dup at 2560.
  // CHECK-COUNT-3: llvm.call @sprt_convert
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK-NEXT: %[[DYO:.*]] = llvm.mlir.constant(2048 : i64) : i64
  // CHECK-NEXT: %[[DY:.*]] = llvm.getelementptr %[[ARENA]][%[[DYO]]]
  // CHECK-NEXT: %[[GBO:.*]] = llvm.mlir.constant(1536 : i64) : i64
  // CHECK-NEXT: %[[GB:.*]] = llvm.getelementptr %[[ARENA]][%[[GBO]]]
  // CHECK-NEXT: %[[UBO:.*]] = llvm.mlir.constant(1792 : i64) : i64
  // CHECK-NEXT: %[[UB:.*]] = llvm.getelementptr %[[ARENA]][%[[UBO]]]
  // CHECK-NEXT: %[[DGO:.*]] = llvm.mlir.constant(2304 : i64) : i64
  // CHECK-NEXT: %[[DG:.*]] = llvm.getelementptr %[[ARENA]][%[[DGO]]]
  // CHECK-NEXT: %[[DUO:.*]] = llvm.mlir.constant(2560 : i64) : i64
  // CHECK-NEXT: %[[DU:.*]] = llvm.getelementptr %[[ARENA]][%[[DUO]]]
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_swiglu_grad_typed(%[[DY]], %[[GB]], %[[UB]], %[[DG]], %[[DU]], %[[M]], %[[BF16]])
  %dg, %du = tfm.swiglu_grad %hb, %gb, %ub : tensor<8x2x8xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
