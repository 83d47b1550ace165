
func.func @dout_element_type(%do: tensor<8x2x32xbf16>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dout must have q's type}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xbf16>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

