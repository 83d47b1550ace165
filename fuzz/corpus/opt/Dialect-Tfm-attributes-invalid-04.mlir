
// expected-error @+1 {{'func.func' op carries 'tfm.grad_of', which belongs on a function result}}
func.func @f() attributes {tfm.grad_of = @w} {
  return
}

