
func.func @scalar_dy(%dy: tensor<f32>) {
  // expected-error @+1 {{dy must have rank >= 1}}
  %0 = tfm.bias_grad %dy : tensor<f32> -> tensor<1xf32>
  return
}

