
func.func @max_norm_negative() {
  // expected-error @+1 {{default of grad_clip must be finite and >= 0, got -1.000000e+00}}
  %clip = tfm.hyperparameter grad_clip default -1.0
  return
}

