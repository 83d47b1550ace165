
// The out_in gradient is [out, in], not [in, out].
func.func @out_in_shape(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dweight must have shape [48, 16] and element type 'f32', got 'tensor<16x48xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<16x48xf32>
  return
}

