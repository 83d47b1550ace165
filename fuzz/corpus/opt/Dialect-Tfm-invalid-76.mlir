
func.func @zero_head_dim(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 4, 4, 0}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 4 head_dim 0 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

