
func.func @result_type(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{result type 'tensor<8x2x16xbf16>' differs from the input type 'tensor<8x2x16xf32>'}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xbf16>
  return
}

