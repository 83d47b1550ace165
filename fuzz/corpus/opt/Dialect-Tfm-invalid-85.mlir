
func.func @leading_dims(%x: tensor<8x2x48xf32>) {
  // expected-error @+1 {{result 0 must have shape [8, 2, 16] and element type 'f32', got 'tensor<16x16xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing heads heads 4 kv_heads 4 head_dim 4 : tensor<8x2x48xf32> -> tensor<16x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

