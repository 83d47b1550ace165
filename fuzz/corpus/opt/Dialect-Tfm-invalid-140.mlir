
func.func @result_shape(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>) {
  // expected-error @+1 {{result must have shape [8, 2] (the logits' without the vocabulary), got [2, 8]}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<2x8xf32>
  return
}

