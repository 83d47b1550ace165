
func.func @integer_input(%x: tensor<8x16xi32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.linear %x, %w : (tensor<8x16xi32>, tensor<48x16xf32>) -> tensor<8x48xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.qkv_split
//===----------------------------------------------------------------------===//

