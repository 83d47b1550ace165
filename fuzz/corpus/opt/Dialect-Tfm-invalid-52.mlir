
func.func @weight_element(%x: tensor<8x2x16xbf16>, %w: tensor<16xf32>) {
  // expected-error @+1 {{weight element type 'f32' differs from the input's 'bf16'}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xbf16>, tensor<16xf32>) -> tensor<8x2x16xbf16>
  return
}

