
func.func @bias_element(%x: tensor<8x2x16xbf16>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias element type 'f32' differs from the input's 'bf16'}}
  %0 = tfm.bias_add %x, %b : tensor<8x2x16xbf16>, tensor<16xf32>
  return
}

