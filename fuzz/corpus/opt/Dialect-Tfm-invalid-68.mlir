
func.func @bias_element(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>, %b: tensor<48xbf16>) {
  // expected-error @+1 {{bias element type 'bf16' differs from the input's 'f32'}}
  %0 = tfm.linear %x, %w, %b : (tensor<8x16xf32>, tensor<48x16xf32>, tensor<48xbf16>) -> tensor<8x48xf32>
  return
}

