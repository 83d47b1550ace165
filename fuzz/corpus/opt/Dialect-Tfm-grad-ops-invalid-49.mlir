
func.func @dk_tokens(%dq: tensor<8x2x32xf32>, %dk: tensor<2x8x16xf32>, %dv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dk must have shape [8, 2, 16] and element type 'f32', got 'tensor<2x8x16xf32>'}}
  %0 = tfm.qkv_concat %dq, %dk, %dv packing blocks heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<2x8x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x64xf32>
  return
}

