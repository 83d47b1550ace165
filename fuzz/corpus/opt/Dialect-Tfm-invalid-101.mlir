
func.func @positions_shape(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>, %pos: tensor<2x8xi64>) {
  // expected-error @+1 {{positions must have shape [8, 2], got [2, 8]}}
  %0 = tfm.attention %q, %kv, %kv positions %pos heads 4 kv_heads 4 head_dim 8 {rotary_dim = 8} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<2x8xi64> -> tensor<8x2x32xf32>
  return
}

