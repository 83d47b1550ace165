
func.func @positions_rank(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{positions must have shape [8, 2], got [8]}}
  %0 = tfm.attention %q, %kv, %kv positions %pos heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8xi32> -> tensor<8x2x32xf32>
  return
}

