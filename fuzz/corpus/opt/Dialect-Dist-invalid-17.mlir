
// expected-error @+1 {{block count of axis 'tp' must be >= 1}}
func.func @zero_blocks(%x: tensor<4xf32, #dist.layout<@mesh, tp = S(0, blocks = 0)>>) {
  return
}

