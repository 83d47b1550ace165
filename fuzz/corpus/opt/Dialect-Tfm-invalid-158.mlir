
func.func @loss_not_scalar(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>) -> tensor<1xf32>
  return
}

