
func.func @sum_squares_not_scalar(%g: tensor<16x32xf32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.sum_squares %g : tensor<16x32xf32> -> tensor<1xf32>
  return
}

