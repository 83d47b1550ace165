
func.func @dx_features(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 8] and element type 'f32', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 2 : tensor<8x2x16xf32> -> tensor<8x2x16xf32>
  return
}

