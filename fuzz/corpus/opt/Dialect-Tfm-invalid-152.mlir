
func.func @stats_not_f32(%s: tensor<8x2xf32>, %h: tensor<8x2xbf16>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.cross_entropy_from_stats %s, %h, %s, %lab ignore_index -100 : tensor<8x2xf32>, tensor<8x2xbf16>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

