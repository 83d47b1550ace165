// RUN: sp-opt %s -tfm-autodiff | FileCheck %s
// RUN: sp-opt %s -tfm-autodiff --sp-report=comm -o /dev/null | FileCheck %s --check-prefix=COMM

// dist.ring_attention's transpose: dist.ring_attention_grad of the result's
// gradient, the forward's q, k, v, result and lse (and positions), with the
// forward's attributes; dq, dk and dv are contributions to q, k and v (here
// one value, so they are summed before the embedding's backward).
dist.mesh @mesh ["cp" = 2] roles [context]
tfm.param @emb : tensor<16x16xf32> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x16xf32>
  %x = tfm.embedding %ids, %e : (tensor<8x2xi64>, tensor<16x16xf32>) -> tensor<8x2x16xf32>
  %p = tfm.position_ids : tensor<8x2xi64>
  %o, %lse = dist.ring_attention %x, %x, %x positions %p on @mesh["cp"] heads 2 kv_heads 2 head_dim 8 {causal, rotary_dim = 8 : i64, dropout_rate = 1.000000e-01 : f64}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64>) -> (tensor<8x2x16xf32>, tensor<8x2x2xf32>)
  %loss = tfm.cross_entropy %o, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
// CHECK: %[[X:.*]] = tfm.embedding
// CHECK: %[[O:.*]], %[[L:.*]] = dist.ring_attention %[[X]], %[[X]], %[[X]] positions
// CHECK: tfm.fill 1.000000e+00 {tfm.backward_begins}
// CHECK: %[[DO:.*]] = tfm.cross_entropy_grad %[[O]]
// The positions of tfm.position_ids are computed again, not kept.
// CHECK: %[[P:.*]] = tfm.position_ids
// CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = dist.ring_attention_grad %[[DO]], %[[X]], %[[X]], %[[X]], %[[O]], %[[L]] positions %[[P]] on @mesh["cp"] heads 2 kv_heads 2 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, rotary_dim = 8 : i64}
// CHECK-SAME: -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>)
// CHECK: %[[S:.*]] = tfm.add %[[DQ]], %[[DK]]
// CHECK: %[[T:.*]] = tfm.add %[[S]], %[[DV]]
// CHECK: tfm.embedding_grad %{{.*}}, %[[T]]

// --report comm: the bytes each rank sends around the ring, as the runtime
// counts them. k and v are 8x2x16 f32 (1024 bytes each), positions 8x2 i64
// (128): the forward sends (n - 1) x (1024 + 1024 + 128) = 2176, the
// backward that plus n x (1024 + 1024) of dK/dV = 6272 (n = 2).
// COMM: "bytes_sent": 8448,
// COMM: "axis": "cp",
// COMM-NEXT: "bytes_sent": 2176,
// COMM-NEXT: "op": "dist.ring_attention"
// COMM: "axis": "cp",
// COMM-NEXT: "bytes_sent": 6272,
// COMM-NEXT: "op": "dist.ring_attention_grad"
