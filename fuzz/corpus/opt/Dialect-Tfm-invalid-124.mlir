
func.func @bias_rank(%x: tensor<8x2x16xf32>, %b: tensor<2x16xf32>) {
  // expected-error @+1 {{bias must have shape [16] (the input's last dimension), got [2, 16]}}
  %0 = tfm.bias_add %x, %b : tensor<8x2x16xf32>, tensor<2x16xf32>
  return
}

