
func.func @labels_float(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<8x2xf32>
  return
}

