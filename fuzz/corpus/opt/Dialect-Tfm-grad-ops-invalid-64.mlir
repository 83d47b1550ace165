
func.func @dv_type(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>, %pos: tensor<8x2xi64>) {
  // expected-error @+1 {{dq, dk and dv must have the types of q, k and v}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv positions %pos heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xbf16>
  return
}

