
func.func @dx_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<16x16xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

