
// GQA: k must be kv_heads * head_dim = 16 wide, not heads * head_dim.
func.func @k_width(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xf32>, %v: tensor<8x2x16xf32>) {
  // expected-error @+1 {{k must have shape [8, 2, 16], got [8, 2, 32]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
  return
}

