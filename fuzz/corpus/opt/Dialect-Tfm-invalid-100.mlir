
func.func @result_element(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{result element type 'bf16' differs from q's 'f32'}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xbf16>
  return
}

