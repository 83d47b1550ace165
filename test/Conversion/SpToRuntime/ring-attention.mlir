// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// dist.ring_attention and its backward lower to one runtime call each:
// sprt_op_ring_attention(q, k, v, positions, out, lse, args) and
// sprt_op_ring_attention_grad(dout, q, k, v, positions, out, lse, dq, dk, dv,
// args), args the address of an sprt_attention_args (sprt/abi.def) on the
// stack: S, B, heads, kv_heads, head_dim, rotary_dim, theta, dropout_rate,
// dropout_stream, causal, document_causal (2: SPRT_DOCUMENTS_STEP_POSITIONS,
// the positions are tfm.position_ids'), batch axis, head axis and the
// sequence's axis, cp (mesh axis 0; the batch and heads are not split: -1).
// Its slot is allocated in the entry block, once per call.
dist.mesh @mesh ["cp" = 2] roles [context]
tfm.param @emb : tensor<16x16xf32> init normal(2.000000e-02)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-COUNT-2: llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, i64, i64, i64, f64, f64, i64, i32, i32, i32, i32, i32)> {alignment = 8 : i64}
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x16xf32>
  %x = tfm.embedding %ids, %e : (tensor<8x2xi64>, tensor<16x16xf32>) -> tensor<8x2x16xf32>
  %p = tfm.position_ids : tensor<8x2xi64>
  // The spans of the embedding, position_ids and ring_attention.
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK: llvm.call @sprt_trace_begin
  // CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[B:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[H:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[KV:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[D:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[RD:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[TH:.*]] = llvm.mlir.constant(1.000000e+04 : f64) : f64
  // CHECK-NEXT: %[[DR:.*]] = llvm.mlir.constant(1.000000e-01 : f64) : f64
  // CHECK-NEXT: %[[DS:.*]] = llvm.mlir.constant(3 : i64) : i64
  // CHECK-NEXT: %[[C:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[DC:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: %[[BA:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[HA:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[CP:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[F0:.*]] = llvm.getelementptr %[[ARGS:.*]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, i64, i64, i64, f64, f64, i64, i32, i32, i32, i32, i32)>
  // CHECK-NEXT: llvm.store %[[S]], %[[F0]] : i64, !llvm.ptr
  // CHECK: %[[F6:.*]] = llvm.getelementptr %[[ARGS]][0, 6]
  // CHECK-NEXT: llvm.store %[[TH]], %[[F6]] : f64, !llvm.ptr
  // CHECK: %[[F13:.*]] = llvm.getelementptr %[[ARGS]][0, 13]
  // CHECK-NEXT: llvm.store %[[CP]], %[[F13]] : i32, !llvm.ptr
  // lse, the last pointer (without a plan the values follow each other:
  // 2176 bytes into the arena).
  // CHECK: llvm.mlir.constant(2176 : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: llvm.call @sprt_op_ring_attention(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ARGS]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  %o, %lse = dist.ring_attention %x, %x, %x positions %p on @mesh["cp"] heads 2 kv_heads 2 head_dim 8 {causal, document_causal, rotary_dim = 8 : i64, dropout_rate = 1.000000e-01 : f64, dropout_stream = 3 : i64}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64>) -> (tensor<8x2x16xf32>, tensor<8x2x2xf32>)
  // CHECK: llvm.getelementptr %[[GARGS:.*]][0, 13]
  // CHECK: llvm.call @sprt_op_ring_attention_grad({{(%[0-9]+, )+}}%[[GARGS]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  %dq, %dk, %dv = dist.ring_attention_grad %o, %x, %x, %x, %o, %lse positions %p on @mesh["cp"] heads 2 kv_heads 2 head_dim 8 {causal, document_causal, rotary_dim = 8 : i64, dropout_rate = 1.000000e-01 : f64, dropout_stream = 3 : i64}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x2xf32>, tensor<8x2xi64>) -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>)
  %s = tfm.add %dq, %dk : tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %s, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
