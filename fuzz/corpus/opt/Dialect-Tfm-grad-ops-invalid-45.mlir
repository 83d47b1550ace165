
func.func @kv_heads_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads must be a positive multiple of kv_heads and head_dim positive}}
  %0 = tfm.qkv_concat %d, %d, %d packing heads heads 4 kv_heads 0 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

