
func.func @label_logit_shape(%s: tensor<8x2xf32>, %z: tensor<8x2x1xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{label_logit must have the labels' shape [8, 2], got 'tensor<8x2x1xf32>'}}
  %0 = tfm.cross_entropy_from_stats %s, %s, %z, %lab ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x1xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

