
func.func @qkv_heads(%x: tensor<1x1x12xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.qkv_split' op 3 * heads = 3 * 4611686018427387904 overflows int64}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4611686018427387904 kv_heads 4611686018427387904 head_dim 1 : tensor<1x1x12xf32> -> tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
  return %q : tensor<1x1x4xf32>
}

