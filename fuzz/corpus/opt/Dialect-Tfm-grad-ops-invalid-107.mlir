
func.func @lr_inf() {
  // expected-error @+1 {{default of lr must be finite and > 0, got INF}}
  %lr = tfm.hyperparameter lr default 0x7FF0000000000000
  return
}

