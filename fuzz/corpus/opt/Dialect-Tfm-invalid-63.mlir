
// An [in, out] weight read with the default out_in layout.
func.func @in_features_out_in(%x: tensor<8x16xf32>, %w: tensor<16x48xf32>) {
  // expected-error @+1 {{weight [16, 48] (out_in) has 48 input features but the input's last dimension is 16}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x16xf32>
  return
}

