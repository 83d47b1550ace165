
func.func @max_norm_negative(%s: tensor<f32>) {
  // expected-error @+1 {{max_norm must be >= 0}}
  %0:2 = tfm.clip_scale %s max_norm -1.0 : tensor<f32> -> tensor<f32>, tensor<f32>
  return
}

