
func.func @result_leading(%k: tensor<8x2x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 16] and element type 'f32', got 'tensor<16x16xf32>'}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x8xf32> -> tensor<16x16xf32>
  return
}

