
func.func @float_positions(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>, %pos: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #4 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv positions %pos heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xf32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy_grad
//===----------------------------------------------------------------------===//

