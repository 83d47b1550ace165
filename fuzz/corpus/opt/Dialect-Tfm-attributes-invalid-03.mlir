
// expected-error @+1 {{'func.func' op carries 'tfm.model_type', which belongs on the module}}
func.func @f() attributes {tfm.model_type = "gpt2"} {
  return
}

