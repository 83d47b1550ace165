
func.func @rotary_theta_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_theta must be > 0, got -1.000000e+04}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = 2, rotary_theta = -10000.0} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

