
func.func @result_type(%l: tensor<8x2x64xbf16>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{the result must have the logits' type}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xbf16>, tensor<8x2xi64>, tensor<f32>) -> tensor<8x2x64xf32>
  return
}

