
func.func @weight_rank(%x: tensor<8x2x16xf32>, %w: tensor<f32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got []}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<f32>) -> tensor<8x2x16xf32>
  return
}

