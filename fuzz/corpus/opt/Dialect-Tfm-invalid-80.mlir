
func.func @input_width_gqa(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{input's last dimension must be (heads + 2 * kv_heads) * head_dim = 32, got [8, 48]}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 2 head_dim 4 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

