
func.func @dloss_not_scalar(%se: tensor<8x2xf32>, %lab: tensor<8x2xi64>, %d: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<8x2xf32>'}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32> -> tensor<8x2xf32>, tensor<8x2xf32>
  return
}

