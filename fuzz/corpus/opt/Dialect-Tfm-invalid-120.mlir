
func.func @add_mixed(%a: tensor<8x16xf32>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.add"(%a, %b) : (tensor<8x16xf32>, tensor<8x16xbf16>) -> tensor<8x16xf32>
  return
}

