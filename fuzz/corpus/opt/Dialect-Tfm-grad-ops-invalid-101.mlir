
func.func @lr_zero() {
  // expected-error @+1 {{default of lr must be finite and > 0, got 0.000000e+00}}
  %lr = tfm.hyperparameter lr default 0.0
  return
}

