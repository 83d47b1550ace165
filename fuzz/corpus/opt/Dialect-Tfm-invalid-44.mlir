
func.func @bias_element(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf16>) {
  // expected-error @+1 {{bias element type 'f16' differs from the input's 'f32'}}
  %0 = tfm.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf16>) -> tensor<8x2x16xf32>
  return
}

