
func.func @zero_head_dim(%k: tensor<8x8xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1, got 2, 0, 2}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 0 factor 2 : tensor<8x8xf32> -> tensor<8x16xf32>
  return
}

