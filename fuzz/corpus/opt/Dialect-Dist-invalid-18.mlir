
// expected-error @+1 {{expected 'blocks'}}
func.func @blocks_unnamed(%x: tensor<4xf32, #dist.layout<@mesh, tp = S(0, 2)>>) {
  return
}

