
// A step that returns no gradient has nothing to update.
// expected-error @+1 {{'func.func' op has no parameter gradients to apply}}
func.func @train_step(%loss: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
  return %loss : tensor<f32>
}
