
func.func @gelu_input_type(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xbf16>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.gelu_grad"(%dy, %x) {approximate = 1 : i32} : (tensor<8x2x64xf32>, tensor<8x2x64xbf16>) -> tensor<8x2x64xf32>
  return
}

