
// An axis given twice is an error even when one of the entries is R.
// expected-error @+1 {{axis 'tp' given twice}}
func.func @axis_twice_replicated(%x: tensor<4xf32, #dist.layout<@mesh, tp = R, "tp" = P>>) {
  return
}

