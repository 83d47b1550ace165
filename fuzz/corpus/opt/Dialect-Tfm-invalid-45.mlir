
func.func @result_shape(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{result type 'tensor<2x8x16xf32>' differs from the input type 'tensor<8x2x16xf32>'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  return
}

