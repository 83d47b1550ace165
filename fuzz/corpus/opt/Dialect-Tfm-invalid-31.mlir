
func.func @float_ids() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.position_ids : tensor<8x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.embedding
//===----------------------------------------------------------------------===//

