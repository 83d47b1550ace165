
func.func @gelu_integer(%x: tensor<8x16xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.gelu %x approximate none : tensor<8x16xi32>
  return
}

