
func.func @result_type(%l: tensor<8x2x64xbf16>, %m: tensor<8x2xf32>, %dse: tensor<8x2xf32>) {
  // expected-error @+1 {{the result must have the logits' type}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<8x2x64xbf16>, tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x2x64xf32>
  return
}

