
func.func @zero_heads(%k: tensor<8x8xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1, got 0, 4, 2}}
  %0 = tfm.repeat_heads %k heads 0 head_dim 4 factor 2 : tensor<8x8xf32> -> tensor<8x16xf32>
  return
}

