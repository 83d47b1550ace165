
func.func @bias_size(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias must have shape [16] (the input's last dimension), got [2]}}
  %0 = tfm.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<2xf32>) -> tensor<8x2x16xf32>
  return
}

