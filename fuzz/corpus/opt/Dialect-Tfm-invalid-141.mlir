
func.func @max_not_f32(%l: tensor<8x2x64xf16>, %m: tensor<8x2xf16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xf16>'}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf16>, tensor<8x2xf16> -> tensor<8x2xf32>
  return
}

