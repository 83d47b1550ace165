
func.func @result_rank(%lab: tensor<8x2xi64>, %dz: tensor<8x2xf32>) {
  // expected-error @+1 {{dz must have the labels' shape and the result that shape followed by the vocabulary}}
  %0 = tfm.label_logit_grad %lab, %dz ignore_index -100 : tensor<8x2xi64>, tensor<8x2xf32> -> tensor<8x2xf32>
  return
}

