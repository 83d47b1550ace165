
// A block reads each hyperparameter once: two reads could give one name
// two defaults.
func.func @read_twice() {
  // expected-note @+1 {{the first read}}
  %lr = tfm.hyperparameter lr default 1.0e-03
  // expected-error @+1 {{reads hyperparameter lr a second time in its block}}
  %lr2 = tfm.hyperparameter lr default 2.0e-03
  return
}

