
// The sum is f32 whatever the gradient's element type.
func.func @sum_squares_not_f32(%g: tensor<16x32xbf16>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<bf16>'}}
  %0 = tfm.sum_squares %g : tensor<16x32xbf16> -> tensor<bf16>
  return
}

