
func.func @sumexp_shape(%s: tensor<8x2xf32>, %se: tensor<2x8xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{sumexp must have the labels' shape [8, 2], got 'tensor<2x8xf32>'}}
  %0 = tfm.cross_entropy_from_stats %s, %se, %s, %lab ignore_index -100 : tensor<8x2xf32>, tensor<2x8xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

