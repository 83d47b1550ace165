
func.func @positions_float(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>, %pos: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.attention %q, %kv, %kv positions %pos heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2xf32> -> tensor<8x2x32xf32>
  return
}

