
func.func @dropout_rate_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dropout_rate must be in [0, 1), got -5.000000e-01}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {dropout_rate = -0.5} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

