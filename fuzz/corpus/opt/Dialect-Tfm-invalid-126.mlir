
func.func @result_type(%x: tensor<8x2x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "tfm.bias_add"(%x, %b) : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf16>
  return
}

