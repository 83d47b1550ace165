
func.func @labels_shape(%l: tensor<8x2x64xf32>, %lab: tensor<16xi64>) {
  // expected-error @+1 {{labels must have shape [8, 2] (the logits' without the vocabulary), got [16]}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xf32>, tensor<16xi64> -> tensor<8x2xf32>
  return
}

