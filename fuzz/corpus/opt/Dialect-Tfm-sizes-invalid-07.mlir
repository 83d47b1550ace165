
// The [b, heads, s, s] attention scores the memory report counts: with
// s = 2^31, b = 2 and 2 heads, 2^64 scores.
func.func @attention_scores(%q: tensor<2147483648x2x4xf16>) -> tensor<2147483648x2x4xf16> {
  // expected-error @+1 {{'tfm.attention' op the attention scores [b, heads, s, s] = 2 * 2 * 2147483648 * 2147483648 overflows int64}}
  %0 = tfm.attention %q, %q, %q heads 2 kv_heads 2 head_dim 2 : tensor<2147483648x2x4xf16>, tensor<2147483648x2x4xf16>, tensor<2147483648x2x4xf16> -> tensor<2147483648x2x4xf16>
  return %0 : tensor<2147483648x2x4xf16>
}

