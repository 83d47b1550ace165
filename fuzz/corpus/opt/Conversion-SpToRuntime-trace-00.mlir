// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// The calls of each op are a span of the program's --trace:
// sprt_trace_begin(op name, Hugging Face module of its location) before
// them, sprt_trace_end() after. The names are constant strings, one global
// per text; an op that calls nothing (tfm.get_param) has no span.
// CHECK-DAG: llvm.mlir.global internal constant @[[$FILL:[^(]*]]("tfm.fill\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[$MLP:[^(]*]]("transformer.h.0.mlp\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[$LINEAR:[^(]*]]("tfm.linear\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[$FC:[^(]*]]("transformer.h.0.mlp.c_fc\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[$NONE:[^(]*]]("\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[$RETURN:[^(]*]]("func.return\00")
// CHECK-DAG: llvm.func @sprt_trace_begin(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @sprt_trace_end()
// CHECK-NOT: get_param
// CHECK-LABEL: llvm.func @seqpar_step(
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  // CHECK: %[[N0:.*]] = llvm.mlir.addressof @[[$FILL]]
  // CHECK-NEXT: %[[W0:.*]] = llvm.mlir.addressof @[[$MLP]]
  // CHECK-NEXT: llvm.call @sprt_trace_begin(%[[N0]], %[[W0]]) : (!llvm.ptr, !llvm.ptr) -> ()
  // CHECK: llvm.call @sprt_fill_f32
  // CHECK-NEXT: llvm.call @sprt_trace_end() : () -> ()
  %x = tfm.fill 1.0 : tensor<4x2x8xf32> loc("transformer.h.0.mlp")
  %w = tfm.get_param @w : tensor<8x8xf32>
  // The module is the first name of a fused location.
  // CHECK-NEXT: %[[N1:.*]] = llvm.mlir.addressof @[[$LINEAR]]
  // CHECK-NEXT: %[[W1:.*]] = llvm.mlir.addressof @[[$FC]]
  // CHECK-NEXT: llvm.call @sprt_trace_begin(%[[N1]], %[[W1]])
  // CHECK: llvm.call @sprt_linear_f32
  // CHECK-NEXT: llvm.call @sprt_trace_end()
  %y = tfm.linear %x, %w : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32> loc(fused["transformer.h.0.mlp.c_fc", "model.py":1:2])
  // Without a name the module is "".
  // CHECK-NEXT: %[[N2:.*]] = llvm.mlir.addressof @[[$LINEAR]]
  // CHECK-NEXT: %[[W2:.*]] = llvm.mlir.addressof @[[$NONE]]
  // CHECK-NEXT: llvm.call @sprt_trace_begin(%[[N2]], %[[W2]])
  // CHECK: llvm.call @sprt_linear_f32
  // CHECK-NEXT: llvm.call @sprt_trace_end()
  %z = tfm.linear %y, %w : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  // The return copies the loss out: a span too.
  // CHECK: llvm.mlir.addressof @[[$RETURN]]
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK: llvm.call @sprt_copy_scalar_to_host
  // CHECK-NEXT: llvm.call @sprt_trace_end()
  // CHECK-NEXT: llvm.return
  return %l : tensor<f32>
}
// The step's FLOPs per rank: two [8, 8] x [8, 8] GEMMs, 2 * 8 * 8 * 8 each.
// CHECK: @seqpar_model_json("{{.*}}\22flops_per_step\22:2048,{{.*}}\22recompute_flops_per_step\22:0,
