
func.func @scalar_logits(%l: tensor<f32>, %lab: tensor<i64>, %d: tensor<f32>) {
  // expected-error @+1 {{labels must have the logits' shape without the vocabulary}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<f32>
  return
}

