
func.func @eps_negative() {
  // expected-error @+1 {{default of eps must be finite and > 0, got -1.000000e-08}}
  %eps = tfm.hyperparameter eps default -1.0e-08
  return
}

