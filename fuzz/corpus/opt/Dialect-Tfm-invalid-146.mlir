
func.func @result_not_f32(%l: tensor<8x2x64xbf16>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xbf16>, tensor<8x2xi64> -> tensor<8x2xbf16>
  return
}

