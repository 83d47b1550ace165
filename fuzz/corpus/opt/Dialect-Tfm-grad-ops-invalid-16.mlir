
func.func @size(%dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dbias must have shape [48] and element type 'f32', got 'tensor<16xf32>'}}
  %0 = tfm.bias_grad %dy : tensor<8x2x48xf32> -> tensor<16xf32>
  return
}

