
// expected-error @+1 {{'func.func' op carries the unknown attribute 'tfm.gradof' (see the tfm dialect's attributes)}}
func.func @f() attributes {tfm.gradof = @w} {
  return
}

