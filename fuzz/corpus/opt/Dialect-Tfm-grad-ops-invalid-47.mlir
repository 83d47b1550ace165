
func.func @dq_features(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dq must have shape [8, 2, 32] and element type 'f32', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 8 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x96xf32>
  return
}

