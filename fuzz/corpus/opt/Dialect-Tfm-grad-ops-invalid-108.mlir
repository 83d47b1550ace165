
func.func @beta1_one() {
  // expected-error @+1 {{default of beta1 must be in [0, 1), got 1.000000e+00}}
  %b = tfm.hyperparameter beta1 default 1.0
  return
}

