
// The input needs a last (normalised) dimension.
func.func @scalar_input(%dy: tensor<f32>, %x: tensor<f32>, %w: tensor<1xf32>) {
  // expected-error @+1 {{dy and the input must have the same shape}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<f32>, tensor<f32>, tensor<1xf32>) -> (tensor<f32>, tensor<1xf32>)
  return
}

