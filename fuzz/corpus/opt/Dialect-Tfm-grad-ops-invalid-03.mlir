
// With in_out, out is dimension 1.
func.func @out_features_in_out(%dy: tensor<8x2x48xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{dy's last dimension must be the weight's 16 output features, got [8, 2, 48]}}
  %0 = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  return
}

