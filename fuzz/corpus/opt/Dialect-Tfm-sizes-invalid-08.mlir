
func.func @qkv_width(%x: tensor<1x1x12xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.qkv_split' op (heads + 2 * kv_heads) * head_dim = 3 * 4611686018427387904 overflows int64}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 1 kv_heads 1 head_dim 4611686018427387904 : tensor<1x1x12xf32> -> tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
  return %q : tensor<1x1x4xf32>
}

