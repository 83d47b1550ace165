
func.func @max_shape(%m: tensor<8xf32>, %s: tensor<8x2xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{max must have the labels' shape [8, 2], got 'tensor<8xf32>'}}
  %0 = tfm.cross_entropy_from_stats %m, %s, %s, %lab ignore_index -100 : tensor<8xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

