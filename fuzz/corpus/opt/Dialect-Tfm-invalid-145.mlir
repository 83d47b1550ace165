
func.func @result_shape(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result must have shape [8, 2] (the logits' without the vocabulary), got [8, 2, 64]}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xf32>, tensor<8x2xi64> -> tensor<8x2x64xf32>
  return
}

