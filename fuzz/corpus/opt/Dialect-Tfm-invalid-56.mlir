
func.func @rate_negative(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{rate must be in [0, 1), got -1.000000e-01}}
  %0 = tfm.dropout %x rate -0.1 stream 0 : tensor<8x2x16xf32>
  return
}

