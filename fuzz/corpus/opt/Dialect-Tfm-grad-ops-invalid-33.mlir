
func.func @silu_input_type(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x44xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.silu_grad"(%dy, %x) : (tensor<8x2x88xf32>, tensor<8x2x44xf32>) -> tensor<8x2x88xf32>
  return
}

