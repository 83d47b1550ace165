// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime -cse | FileCheck %s

// An attention that keeps its statistics calls sprt_op_attention_lse (f32)
// or _lse_typed (bf16, the element type's code last), with the planned lse
// buffer after out; a backward with saved(out, lse) calls
// sprt_op_attention_grad_lse(_typed) with out and lse after the positions.
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x24xf32>
  %x = tfm.convert %x32 : tensor<8x2x24xf32> -> tensor<8x2x24xbf16>
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<8x2x24xbf16> -> tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16>
  // CHECK: llvm.call @sprt_op_attention_lse_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O:.*]], %[[L:.*]], %{{.*}}, %[[ONE]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> ()
  %o, %lse = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16> -> tensor<8x2x8xbf16>, tensor<8x2x2xf32>
  // CHECK: llvm.call @sprt_op_attention_grad_lse_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[L]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> ()
  %dq, %dk, %dv = tfm.attention_grad %o, %q, %k, %v saved(%o, %lse) heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16> saved(tensor<8x2x8xbf16>, tensor<8x2x2xf32>) -> tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16>
  %q32, %k32, %v32 = tfm.qkv_split %x32 packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<8x2x24xf32> -> tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>
  // CHECK: llvm.call @sprt_op_attention_lse(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O32:.*]], %[[L32:.*]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  %o32, %lse32 = tfm.attention %q32, %k32, %v32 heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32> -> tensor<8x2x8xf32>, tensor<8x2x2xf32>
  // CHECK: llvm.call @sprt_op_attention_grad_lse(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O32]], %[[L32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  %dq32, %dk32, %dv32 = tfm.attention_grad %o32, %q32, %k32, %v32 saved(%o32, %lse32) heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32> saved(tensor<8x2x8xf32>, tensor<8x2x2xf32>) -> tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
