
func.func @integer_q(%q: tensor<8x2x32xi32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x2x32xi32>'}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xi32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise: tfm.gelu, tfm.silu, tfm.mul, tfm.add
//===----------------------------------------------------------------------===//

