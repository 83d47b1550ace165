
func.func @result_features(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the result must have shape [8, 2, 48] and element type 'f32', got 'tensor<8x2x64xf32>'}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x64xf32>
  return
}

