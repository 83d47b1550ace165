
// expected-error @+1 {{'func.func' op carries 'tfm.backward_begins', which belongs on a tfm.fill}}
func.func @f() attributes {tfm.backward_begins} {
  return
}

