
func.func @weight_element(%x: tensor<8x2x16xf32>, %w: tensor<16xbf16>) {
  // expected-error @+1 {{weight element type 'bf16' differs from the input's 'f32'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xbf16>) -> tensor<8x2x16xf32>
  return
}

