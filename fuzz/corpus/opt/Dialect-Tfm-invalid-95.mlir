
func.func @k_leading(%q: tensor<8x2x32xf32>, %k: tensor<4x2x32xf32>, %v: tensor<8x2x32xf32>) {
  // expected-error @+1 {{k must have shape [8, 2, 32], got [4, 2, 32]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<4x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

