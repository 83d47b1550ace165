
func.func @element_type(%dy: tensor<8x2x48xf16>) {
  // expected-error @+1 {{dbias must have shape [48] and element type 'f16', got 'tensor<48xf32>'}}
  %0 = tfm.bias_grad %dy : tensor<8x2x48xf16> -> tensor<48xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.layer_norm_grad
//===----------------------------------------------------------------------===//

