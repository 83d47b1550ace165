
func.func @heads_packing_gqa(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{'heads' packing needs heads == kv_heads, got 4 and 2}}
  %q, %k, %v = tfm.qkv_split %x packing heads heads 4 kv_heads 2 head_dim 4 : tensor<8x32xf32> -> tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

