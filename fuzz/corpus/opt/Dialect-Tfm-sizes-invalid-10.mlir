
func.func @qkv_concat(%d: tensor<1x1x4xf32>) -> tensor<1x1x12xf32> {
  // expected-error @+1 {{'tfm.qkv_concat' op (heads + 2 * kv_heads) * head_dim = 3 * 4611686018427387904 overflows int64}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 1 kv_heads 1 head_dim 4611686018427387904 : tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32> -> tensor<1x1x12xf32>
  return %0 : tensor<1x1x12xf32>
}

