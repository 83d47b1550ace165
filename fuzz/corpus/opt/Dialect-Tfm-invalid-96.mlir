
func.func @v_rank(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xf32>, %v: tensor<16x32xf32>) {
  // expected-error @+1 {{v must have shape [8, 2, 32], got [16, 32]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<16x32xf32> -> tensor<8x2x32xf32>
  return
}

