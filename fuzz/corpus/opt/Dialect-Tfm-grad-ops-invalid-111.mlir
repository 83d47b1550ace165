
func.func @beta2_above_one() {
  // expected-error @+1 {{default of beta2 must be in [0, 1), got 1.500000e+00}}
  %b = tfm.hyperparameter beta2 default 1.5
  return
}

