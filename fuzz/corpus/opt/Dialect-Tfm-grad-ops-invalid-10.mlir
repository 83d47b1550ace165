
func.func @scalar_input(%x: tensor<f32>, %dy: tensor<f32>) {
  // expected-error @+1 {{input [] and dy [] must have the same leading dimensions}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<f32>, tensor<f32>) -> tensor<1x1xf32>
  return
}

