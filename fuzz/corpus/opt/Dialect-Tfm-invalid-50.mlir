
func.func @weight_size(%x: tensor<8x2x16xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got [32]}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<32xf32>) -> tensor<8x2x16xf32>
  return
}

