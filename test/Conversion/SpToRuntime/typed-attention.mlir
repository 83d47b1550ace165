// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime -cse | FileCheck %s

// Attention and its backward on bf16 tensors (kept as stored by
// sp-legalize-precision) call the typed entry points with the element
// type's code last (SPRT_DTYPE_BF16 = 1); the head reshapes take the
// element's bytes (2 for bf16, 4 for f32). All-f32 attention calls the f32
// entry points as before. (-cse leaves one constant of each value.)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x24xf32>
  %x = tfm.convert %x32 : tensor<8x2x24xf32> -> tensor<8x2x24xbf16>
  // CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_qkv_split(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, i32) -> ()
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<8x2x24xbf16> -> tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16>
  // CHECK: llvm.call @sprt_op_attention_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> ()
  %o = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16> -> tensor<8x2x8xbf16>
  // CHECK: llvm.call @sprt_op_attention_grad_typed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> ()
  %dq, %dk, %dv = tfm.attention_grad %o, %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16> -> tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16>
  // CHECK: llvm.call @sprt_qkv_concat(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, i32) -> ()
  %c = tfm.qkv_concat %dq, %dk, %dv packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8x2x8xbf16> -> tensor<8x2x24xbf16>
  // CHECK: llvm.call @sprt_repeat_heads(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32) -> ()
  %r = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x8xbf16> -> tensor<8x2x16xbf16>
  // CHECK: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_qkv_split({{.*}}, %[[FOUR]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, i32) -> ()
  %q32, %k32, %v32 = tfm.qkv_split %x32 packing blocks heads 2 kv_heads 2 head_dim 4 : tensor<8x2x24xf32> -> tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>
  // CHECK: llvm.call @sprt_op_attention(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  %o32 = tfm.attention %q32, %k32, %v32 heads 2 kv_heads 2 head_dim 4 {causal} : tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32> -> tensor<8x2x8xf32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
