
func.func @add_result(%a: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.add"(%a, %a) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}

