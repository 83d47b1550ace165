// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// dist.ring_attention and its backward lower to one runtime call each:
// sprt_op_ring_attention(q, k, v, positions, out, lse, S, B, heads,
// kv_heads, head_dim, causal, document_causal, rotary_dim, theta,
// dropout_rate, dropout_stream, batch axis, head axis, cp axis) and
// sprt_op_ring_attention_grad(dout, q, k, v, positions, out, lse, dq, dk, dv,
// the same scalars). Mesh axis 0 is cp (the batch and heads are not split:
// -1).
dist.mesh @mesh ["cp" = 2] roles [context]
tfm.param @emb : tensor<16x16xf32> init normal(2.000000e-02)
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x16xf32>
  %x = tfm.embedding %ids, %e : (tensor<8x2xi64>, tensor<16x16xf32>) -> tensor<8x2x16xf32>
  %p = tfm.position_ids : tensor<8x2xi64>
  // lse, the last pointer (without a plan the values follow each other:
  // 2176 bytes into the arena).
  // CHECK: llvm.mlir.constant(2176 : i64) : i64
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[B:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[H:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[KV:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[D:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[C:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[DC:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[RD:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[TH:.*]] = llvm.mlir.constant(1.000000e+04 : f64) : f64
  // CHECK-NEXT: %[[DR:.*]] = llvm.mlir.constant(1.000000e-01 : f64) : f64
  // CHECK-NEXT: %[[DS:.*]] = llvm.mlir.constant(3 : i64) : i64
  // CHECK-NEXT: %[[BA:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[HA:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[CP:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_op_ring_attention(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %[[B]], %[[H]], %[[KV]], %[[D]], %[[C]], %[[DC]], %[[RD]], %[[TH]], %[[DR]], %[[DS]], %[[BA]], %[[HA]], %[[CP]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i32, i32, i64, f64, f64, i64, i32, i32, i32) -> ()
  %o, %lse = dist.ring_attention %x, %x, %x positions %p on @mesh["cp"] heads 2 kv_heads 2 head_dim 8 {causal, document_causal, rotary_dim = 8 : i64, dropout_rate = 1.000000e-01 : f64, dropout_stream = 3 : i64}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64>) -> (tensor<8x2x16xf32>, tensor<8x2x2xf32>)
  // CHECK: llvm.call @sprt_op_ring_attention_grad(%{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i32, i32, i64, f64, f64, i64, i32, i32, i32) -> ()
  %dq, %dk, %dv = dist.ring_attention_grad %o, %x, %x, %x, %o, %lse positions %p on @mesh["cp"] heads 2 kv_heads 2 head_dim 8 {causal, document_causal, rotary_dim = 8 : i64, dropout_rate = 1.000000e-01 : f64, dropout_stream = 3 : i64}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x2xf32>, tensor<8x2xi64>) -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>)
  %s = tfm.add %dq, %dk : tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %s, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
