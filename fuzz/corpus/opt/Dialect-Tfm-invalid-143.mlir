
func.func @logits_rank0(%l: tensor<f32>, %m: tensor<f32>) {
  // expected-error @+1 {{logits must have rank >= 1, got 'tensor<f32>'}}
  %0 = tfm.logits_sumexp %l, %m : tensor<f32>, tensor<f32> -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.label_logit
//===----------------------------------------------------------------------===//

