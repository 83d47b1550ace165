
func.func @dloss_not_scalar(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>, %d: tensor<1xf32>) {
  // expected-error @+1 {{operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<1xf32>) -> tensor<8x2x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy_from_stats_grad
//===----------------------------------------------------------------------===//

