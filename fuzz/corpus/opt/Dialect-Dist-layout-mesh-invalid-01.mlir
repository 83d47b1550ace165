
// expected-error @+1 {{expected '>'}}
func.func @nested_mesh(%x: tensor<4xf32, #dist.layout<@outer::@mesh, tp = P>>) {
  return
}

