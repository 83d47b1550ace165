
func.func @dv_element_type(%dq: tensor<8x2x32xf32>, %dk: tensor<8x2x16xf32>, %dv: tensor<8x2x16xbf16>) {
  // expected-error @+1 {{dv must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x16xbf16>'}}
  %0 = tfm.qkv_concat %dq, %dk, %dv packing heads heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xbf16> -> tensor<8x2x64xf32>
  return
}

