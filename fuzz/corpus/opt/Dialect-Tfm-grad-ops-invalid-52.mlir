
func.func @result_element_type(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the result must have shape [8, 2, 48] and element type 'f32', got 'tensor<8x2x48xbf16>'}}
  %0 = tfm.qkv_concat %d, %d, %d packing heads heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xbf16>
  return
}

