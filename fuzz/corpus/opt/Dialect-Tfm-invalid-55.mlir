
func.func @rate_one(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{rate must be in [0, 1), got 1.000000e+00}}
  %0 = tfm.dropout %x rate 1.0 stream 0 : tensor<8x2x16xf32>
  return
}

