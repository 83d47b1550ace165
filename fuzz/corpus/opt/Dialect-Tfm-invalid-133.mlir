
func.func @result_width(%k: tensor<8x2x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 24] and element type 'f32', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 3 : tensor<8x2x8xf32> -> tensor<8x2x16xf32>
  return
}

