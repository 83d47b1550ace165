
func.func @result_shape(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 32], got [8, 2, 8]}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 1 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32> -> tensor<8x2x8xf32>
  return
}

