
func.func @q_width(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{result 0 must have shape [8, 16] and element type 'f32', got 'tensor<8x8xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 2 head_dim 4 : tensor<8x32xf32> -> tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

