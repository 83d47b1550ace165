
func.func @loss_not_scalar(%s: tensor<8x2xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.cross_entropy_from_stats %s, %s, %s, %lab ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<8x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy
//===----------------------------------------------------------------------===//

