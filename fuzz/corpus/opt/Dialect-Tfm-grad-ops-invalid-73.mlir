
func.func @dlabel_logit_shape(%se: tensor<8x2xf32>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{sumexp and the gradients must have the labels' shape [8, 2]}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2x1xf32>
  return
}

