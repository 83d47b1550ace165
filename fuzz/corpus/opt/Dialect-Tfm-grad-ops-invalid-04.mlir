
func.func @dx_features(%dy: tensor<8x2x48xf32>, %w: tensor<16x48xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x48xf32>'}}
  %0 = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x48xf32>, tensor<16x48xf32>) -> tensor<8x2x48xf32>
  return
}

