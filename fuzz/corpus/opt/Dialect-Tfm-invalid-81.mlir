
func.func @input_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{input's last dimension must be (heads + 2 * kv_heads) * head_dim = 3, got []}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 1 kv_heads 1 head_dim 1 : tensor<f32> -> tensor<f32>, tensor<f32>, tensor<f32>
  return
}

