
// expected-error @+1 {{'func.func' op carries 'tfm.recomputed', which belongs on an op of a function}}
func.func @f() attributes {tfm.recomputed} {
  return
}

