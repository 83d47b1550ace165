
func.func @weight_element_type(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xbf16>) {
  // expected-error @+1 {{the weight must have shape [16] and element type 'f32', got 'tensor<16xbf16>'}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xbf16>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  return
}

