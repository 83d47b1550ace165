
// attention_grad, causal: 2.5 * 32768 (QK^T recomputed, then dV, dP, dQ, dK).
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 81920,
func.func @f(%do: tensor<16x2x32xf32>, %q: tensor<16x2x32xf32>, %k: tensor<16x2x16xf32>, %v: tensor<16x2x16xf32>) -> tensor<16x2x32xf32> {
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal} : tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>
  return %dq : tensor<16x2x32xf32>
}

