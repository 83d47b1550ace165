
func.func @zero_heads(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 0, 4, 8}}
  %0 = tfm.attention %q, %kv, %kv heads 0 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

