
func.func @heads_not_multiple(%x: tensor<8x56xf32>) {
  // expected-error @+1 {{heads (6) must be a multiple of kv_heads (4)}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 6 kv_heads 4 head_dim 4 : tensor<8x56xf32> -> tensor<8x24xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

