
func.func @head_dim_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads must be a positive multiple of kv_heads and head_dim positive}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 0 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

