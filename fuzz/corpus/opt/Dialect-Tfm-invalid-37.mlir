
func.func @integer_table(%ids: tensor<8x2xi64>, %t: tensor<64x16xi32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<64x16xi32>'}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xi32>) -> tensor<8x2x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.layer_norm
//===----------------------------------------------------------------------===//

