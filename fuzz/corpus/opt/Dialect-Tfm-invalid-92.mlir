
func.func @q_width(%q: tensor<8x2x16xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{q must have shape [8, 2, 32], got [8, 2, 16]}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x16xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x16xf32>
  return
}

