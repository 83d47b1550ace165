
func.func @result_type(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.dropout"(%x) {rate = 0.1 : f64, stream = 0 : i64} : (tensor<8x2x16xf32>) -> tensor<8x2x16xf16>
  return
}

