
func.func @dropout_stream_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dropout_stream must be >= 0, got -1}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {dropout_rate = 0.1, dropout_stream = -1} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

