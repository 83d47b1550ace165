
func.func @weight_element(%x: tensor<8x16xf32>, %w: tensor<48x16xf16>) {
  // expected-error @+1 {{input, weight and result element types differ ('f32', 'f16', 'f32')}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<48x16xf16>) -> tensor<8x48xf32>
  return
}

