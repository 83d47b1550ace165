
func.func @zero_kv_heads(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 4, 0, 4}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 0 head_dim 4 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

