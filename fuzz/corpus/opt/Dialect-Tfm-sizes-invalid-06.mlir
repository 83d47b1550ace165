
// heads * head_dim past int64 (it would wrap to 0 and match nothing).
func.func @attention_width(%q: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.attention' op heads * head_dim = 4294967296 * 4294967296 overflows int64}}
  %0 = tfm.attention %q, %q, %q heads 4294967296 kv_heads 4294967296 head_dim 4294967296 : tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

