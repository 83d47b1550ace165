
func.func @scalar_logits(%l: tensor<f32>, %m: tensor<f32>, %dse: tensor<f32>) {
  // expected-error @+1 {{logits must have rank >= 1}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<f32>
  return
}

