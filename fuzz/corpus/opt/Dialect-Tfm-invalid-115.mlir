
func.func @gelu_approximation(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = tfm.gelu %x approximate sigmoid : tensor<8x16xf32>
  return
}

