
func.func @labels_shape(%l: tensor<8x2x64xf32>, %lab: tensor<8x2x64xi64>) {
  // expected-error @+1 {{labels must have shape [8, 2] (the logits' without the vocabulary), got [8, 2, 64]}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2x64xi64>) -> tensor<f32>
  return
}

