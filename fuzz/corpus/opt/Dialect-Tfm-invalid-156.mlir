
func.func @logits_rank0(%l: tensor<f32>, %lab: tensor<i64>) {
  // expected-error @+1 {{logits must have rank >= 1, got 'tensor<f32>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

