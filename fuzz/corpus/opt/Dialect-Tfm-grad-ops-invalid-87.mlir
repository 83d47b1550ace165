
func.func @clip_operand_not_scalar(%s: tensor<4xf32>) {
  %grad_clip = tfm.hyperparameter grad_clip default 1.0
  // expected-error @+1 {{operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<4xf32>'}}
  %0:2 = tfm.clip_scale %s max_norm %grad_clip : tensor<4xf32> -> tensor<f32>, tensor<f32>
  return
}

