
func.func @factor_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 0 : tensor<8x2x16xf32> -> tensor<8x2x8xf32>
  return
}

