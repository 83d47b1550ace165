
func.func @dx_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x8xf32>'}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x8xf32>, tensor<16xf32>)
  return
}

