
func.func @q_rank(%q: tensor<16x32xf32>, %kv: tensor<16x32xf32>) {
  // expected-error @+1 {{q must have rank 3 [s, b, heads * head_dim], got [16, 32]}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

