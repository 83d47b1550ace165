
// expected-error @+1 {{expected R, P or S(dim) for axis 'tp', got 'Q'}}
func.func @bad_kind(%x: tensor<4xf32, #dist.layout<@mesh, tp = Q>>) {
  return
}

