
func.func @dweight_element_type(%x: tensor<8x2x16xbf16>, %dy: tensor<8x2x48xbf16>) {
  // expected-error @+1 {{dweight must have shape [48, 16] and element type 'bf16', got 'tensor<48x16xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xbf16>, tensor<8x2x48xbf16>) -> tensor<48x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.bias_grad
//===----------------------------------------------------------------------===//

