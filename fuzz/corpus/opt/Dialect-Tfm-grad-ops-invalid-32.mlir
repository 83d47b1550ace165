
func.func @gelu_approximation(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = tfm.gelu_grad %dy, %x approximate erf : tensor<8x2x64xf32>
  return
}

