
// Two functions marked as the forward: tfm-autodiff does not guess.
// AUTODIFF: error: 'func.func' op tfm-autodiff: a second function marked tfm.forward (the first is @f)
func.func @f(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %0 = tfm.fill 0.0 : tensor<f32>
  return %0 : tensor<f32>
}
func.func @g(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %0 = tfm.fill 0.0 : tensor<f32>
  return %0 : tensor<f32>
}

