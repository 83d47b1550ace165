
func.func @labels_transposed(%l: tensor<8x2x64xf32>, %lab: tensor<2x8xi64>) {
  // expected-error @+1 {{labels must have shape [8, 2] (the logits' without the vocabulary), got [2, 8]}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<2x8xi64>) -> tensor<f32>
  return
}

