
func.func @result_element(%x: tensor<8x16xbf16>, %w: tensor<48x16xbf16>) {
  // expected-error @+1 {{input, weight and result element types differ ('bf16', 'bf16', 'f32')}}
  %0 = tfm.linear %x, %w : (tensor<8x16xbf16>, tensor<48x16xbf16>) -> tensor<8x48xf32>
  return
}

