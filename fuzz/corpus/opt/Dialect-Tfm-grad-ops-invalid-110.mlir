
func.func @beta1_negative() {
  // expected-error @+1 {{default of beta1 must be in [0, 1), got -1.000000e-01}}
  %b = tfm.hyperparameter beta1 default -0.1
  return
}

