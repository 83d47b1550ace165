
func.func @zero_factor(%k: tensor<8x8xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1, got 2, 4, 0}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 0 : tensor<8x8xf32> -> tensor<8x0xf32>
  return
}

