
// expected-error @+1 {{axis 'tp' given twice}}
func.func @axis_twice(%x: tensor<4x4xf32, #dist.layout<@mesh, tp = S(0), dp = P, tp = S(1)>>) {
  return
}

