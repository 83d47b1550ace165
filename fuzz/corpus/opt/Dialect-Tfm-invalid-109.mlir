
func.func @dropout_rate_one(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dropout_rate must be in [0, 1), got 1.000000e+00}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {dropout_rate = 1.0} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

