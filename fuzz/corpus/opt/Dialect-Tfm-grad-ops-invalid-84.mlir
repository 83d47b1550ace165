
func.func @dz_bf16(%lab: tensor<8x2xi64>, %dz: tensor<8x2xbf16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.label_logit_grad %lab, %dz ignore_index -100 : tensor<8x2xi64>, tensor<8x2xbf16> -> tensor<8x2x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.sum_squares / tfm.clip_scale
//===----------------------------------------------------------------------===//

