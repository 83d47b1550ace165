
func.func @integer_input(%x: tensor<8x16xi32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.bias_add %x, %b : tensor<8x16xi32>, tensor<16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.repeat_heads
//===----------------------------------------------------------------------===//

