
func.func @gelu_result_type(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.gelu_grad"(%dy, %x) {approximate = 0 : i32} : (tensor<8x2x64xf32>, tensor<8x2x64xf32>) -> tensor<8x128xf32>
  return
}

