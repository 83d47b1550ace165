
// expected-error @+1 {{'func.func' op 'tfm.optimizer' must be "adamw" or "sgd", got "lamb"}}
func.func @f() attributes {tfm.optimizer = "lamb"} {
  return
}

