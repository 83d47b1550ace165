
func.func @mul_result(%a: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.mul"(%a, %a) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf16>
  return
}

