
func.func @relu_integer(%x: tensor<8x16xi64>) {
  // expected-error @+1 {{'tfm.relu' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi64>'}}
  %0 = tfm.relu %x : tensor<8x16xi64>
  return
}

