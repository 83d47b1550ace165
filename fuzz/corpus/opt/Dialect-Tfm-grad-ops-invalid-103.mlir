
func.func @eps_zero() {
  // expected-error @+1 {{default of eps must be finite and > 0, got 0.000000e+00}}
  %eps = tfm.hyperparameter eps default 0.0
  return
}

