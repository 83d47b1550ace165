
func.func @rank_differs(%x: tensor<16x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{input [16, 16] and dy [8, 2, 48] must have the same leading dimensions}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<16x16xf32>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  return
}

