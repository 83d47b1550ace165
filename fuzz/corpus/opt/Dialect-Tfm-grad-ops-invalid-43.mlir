
func.func @float_ids(%ids: tensor<8x2xf32>, %dy: tensor<8x2x16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xf32>, tensor<8x2x16xf32>) -> tensor<64x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.qkv_concat
//===----------------------------------------------------------------------===//

