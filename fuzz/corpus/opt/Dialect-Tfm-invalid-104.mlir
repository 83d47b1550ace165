
func.func @rotary_odd(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_dim must be even and in [0, 8], got 3}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = 3} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

