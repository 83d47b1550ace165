
func.func @integer_input(%x: tensor<8x2x16xi32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x2x16xi32>'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xi32>, tensor<16xf32>) -> tensor<8x2x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.rms_norm
//===----------------------------------------------------------------------===//

