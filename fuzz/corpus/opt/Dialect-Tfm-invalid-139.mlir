
func.func @max_shape(%l: tensor<8x2x64xf32>, %m: tensor<8xf32>) {
  // expected-error @+1 {{max must have shape [8, 2] (the logits' without the vocabulary), got [8]}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf32>, tensor<8xf32> -> tensor<8x2xf32>
  return
}

