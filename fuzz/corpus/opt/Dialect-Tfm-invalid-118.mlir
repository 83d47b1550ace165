
func.func @mul_broadcast(%a: tensor<8x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.mul"(%a, %b) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return
}

