
func.func @dweight_rank(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dweight must have shape [48, 16] and element type 'f32', got 'tensor<1x48x16xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<1x48x16xf32>
  return
}

