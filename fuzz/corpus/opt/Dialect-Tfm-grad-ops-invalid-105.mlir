
func.func @weight_decay_negative() {
  // expected-error @+1 {{default of weight_decay must be finite and >= 0, got -1.000000e-02}}
  %wd = tfm.hyperparameter weight_decay default -0.01
  return
}

