
func.func @clip_result_not_f32(%s: tensor<f32>) {
  %grad_clip = tfm.hyperparameter grad_clip default 1.0
  // expected-error @+1 {{result #1 must be 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0:2 = tfm.clip_scale %s max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.sgd_update
//===----------------------------------------------------------------------===//

