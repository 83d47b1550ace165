
func.func @missing() {
  // expected-error @+1 {{'missing' does not name a tfm.param}}
  %0 = tfm.get_param @missing : tensor<4xf32>
  return
}

