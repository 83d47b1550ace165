
func.func @dx_leading(%dy: tensor<8x2x48xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<2x8x16xf32>'}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<2x8x16xf32>
  return
}

