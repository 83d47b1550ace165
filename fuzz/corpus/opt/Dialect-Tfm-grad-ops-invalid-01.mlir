
func.func @dy_rank(%dy: tensor<f32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{the weight must have rank 2 and dy rank >= 1}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<f32>, tensor<48x16xf32>) -> tensor<16xf32>
  return
}

