
// An [out, in] weight read as [in, out]: out is dimension 0.
func.func @out_features(%dy: tensor<8x2x16xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{dy's last dimension must be the weight's 48 output features, got [8, 2, 16]}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x16xf32>, tensor<48x16xf32>) -> tensor<8x2x48xf32>
  return
}

