
func.func @scale_integer(%x: tensor<8xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8xi32>'}}
  %0 = tfm.scale %x by 2.0 : tensor<8xi32>
  return
}

