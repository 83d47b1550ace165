
// expected-error @+1 {{split dimension of axis 'tp' must be >= 0}}
func.func @negative_dim(%x: tensor<4xf32, #dist.layout<@mesh, tp = S(-1)>>) {
  return
}

