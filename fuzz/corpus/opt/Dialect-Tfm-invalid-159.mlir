
func.func @loss_not_f32(%l: tensor<8x2x64xbf16>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<bf16>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xbf16>, tensor<8x2xi64>) -> tensor<bf16>
  return
}
