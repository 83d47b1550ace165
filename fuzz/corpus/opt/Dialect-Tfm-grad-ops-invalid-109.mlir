
func.func @beta2_one() {
  // expected-error @+1 {{default of beta2 must be in [0, 1), got 1.000000e+00}}
  %b = tfm.hyperparameter beta2 default 1.0
  return
}

