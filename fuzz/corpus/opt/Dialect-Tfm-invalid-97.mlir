
func.func @k_element(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xbf16>, %v: tensor<8x2x32xf32>) {
  // expected-error @+1 {{k element type 'bf16' differs from q's 'f32'}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xbf16>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

