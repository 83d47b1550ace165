
func.func @leading_dims(%x: tensor<8x2x16xf32>, %dy: tensor<8x4x48xf32>) {
  // expected-error @+1 {{input [8, 2, 16] and dy [8, 4, 48] must have the same leading dimensions}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xf32>, tensor<8x4x48xf32>) -> tensor<48x16xf32>
  return
}

