
// expected-error @+1 {{'func.func' op carries 'tfm.recompute', which belongs on the module}}
func.func @f() attributes {tfm.recompute = #tfm.recompute<full>} {
  return
}

