
func.func @labels_rank(%l: tensor<8x2x64xf32>, %lab: tensor<8x2x64xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{labels must have the logits' shape without the vocabulary}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2x64xi64>, tensor<f32>) -> tensor<8x2x64xf32>
  return
}

