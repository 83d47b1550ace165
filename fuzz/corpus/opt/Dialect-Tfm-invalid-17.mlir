
func.func @not_a_param() {
  // expected-error @+1 {{'not_a_param' does not name a tfm.param}}
  %0 = tfm.get_param @not_a_param : tensor<4xf32>
  return
}

