
func.func @heads_not_multiple(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x24xf32>) {
  // expected-error @+1 {{heads (4) must be a multiple of kv_heads (3)}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 3 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x24xf32>, tensor<8x2x24xf32> -> tensor<8x2x32xf32>
  return
}

