
func.func @weight_size(%x: tensor<8x2x16xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got [8]}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8xf32>) -> tensor<8x2x16xf32>
  return
}

