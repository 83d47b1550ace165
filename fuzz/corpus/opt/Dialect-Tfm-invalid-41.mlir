
func.func @weight_rank(%x: tensor<8x2x16xf32>, %w: tensor<1x16xf32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got [1, 16]}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<1x16xf32>) -> tensor<8x2x16xf32>
  return
}

