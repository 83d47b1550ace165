
// The statistics are f32 whatever the logits' element type.
func.func @sumexp_bf16(%se: tensor<8x2xbf16>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xbf16>, tensor<8x2xi64>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.logits_sumexp_grad
//===----------------------------------------------------------------------===//

