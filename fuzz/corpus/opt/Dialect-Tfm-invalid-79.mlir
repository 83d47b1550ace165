
func.func @input_width(%x: tensor<8x2x32xf32>) {
  // expected-error @+1 {{input's last dimension must be (heads + 2 * kv_heads) * head_dim = 48, got [8, 2, 32]}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x2x32xf32> -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

