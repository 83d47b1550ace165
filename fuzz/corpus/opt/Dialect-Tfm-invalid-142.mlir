
func.func @result_not_f32(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<8x2xbf16>
  return
}

