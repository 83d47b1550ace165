
// An [out, in] weight read as in_out.
func.func @in_features_in_out(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{weight [48, 16] (in_out) has 48 input features but the input's last dimension is 16}}
  %0 = tfm.linear %x, %w weight_layout in_out : (tensor<8x16xf32>, tensor<48x16xf32>) -> tensor<8x16xf32>
  return
}

