
func.func @max_norm_not_grad_clip(%s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  // expected-error @+1 {{'max_norm' must be read by tfm.hyperparameter grad_clip, got hyperparameter lr}}
  %0:2 = tfm.clip_scale %s max_norm %lr : tensor<f32> -> tensor<f32>, tensor<f32>
  return
}
