
func.func @result_shape(%l: tensor<8x2x64xf32>) {
  // expected-error @+1 {{result must have shape [8, 2] (the logits' without the vocabulary), got [8, 2, 1]}}
  %0 = tfm.logits_max %l : tensor<8x2x64xf32> -> tensor<8x2x1xf32>
  return
}

