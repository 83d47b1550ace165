
func.func @unknown_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [lr, beta1, beta2, eps, weight_decay, grad_clip]}}
  %m = tfm.hyperparameter momentum default 0.9
  return
}

