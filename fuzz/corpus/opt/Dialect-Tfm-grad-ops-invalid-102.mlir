
func.func @lr_negative() {
  // expected-error @+1 {{default of lr must be finite and > 0, got -1.000000e-03}}
  %lr = tfm.hyperparameter lr default -1.0e-03
  return
}

