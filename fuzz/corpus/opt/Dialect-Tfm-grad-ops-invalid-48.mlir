
// Grouped-query: k and v have kv_heads * head_dim = 16 features.
func.func @dk_features(%dq: tensor<8x2x32xf32>, %dkv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dk must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x32xf32>'}}
  %0 = tfm.qkv_concat %dq, %dkv, %dkv packing blocks heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x64xf32>
  return
}

