
func.func @scale_result_type(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.scale"(%x) {factor = 2.0 : f64} : (tensor<8x2x16xf32>) -> tensor<8x2x16xbf16>
  return
}

