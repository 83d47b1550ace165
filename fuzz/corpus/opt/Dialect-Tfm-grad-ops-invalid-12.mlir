
// The in_out gradient is [in, out], not [out, in].
func.func @in_out_shape(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dweight must have shape [16, 48] and element type 'f32', got 'tensor<48x16xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy weight_layout in_out : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  return
}

