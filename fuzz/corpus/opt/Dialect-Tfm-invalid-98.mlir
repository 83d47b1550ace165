
func.func @v_element(%q: tensor<8x2x32xf16>, %k: tensor<8x2x32xf16>, %v: tensor<8x2x32xf32>) {
  // expected-error @+1 {{v element type 'f32' differs from q's 'f16'}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf16>, tensor<8x2x32xf16>, tensor<8x2x32xf32> -> tensor<8x2x32xf16>
  return
}

