
func.func @gelu_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.gelu"(%x) {approximate = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  return
}

