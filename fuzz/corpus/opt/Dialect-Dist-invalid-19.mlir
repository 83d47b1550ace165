
// expected-error @+1 {{expected '('}}
func.func @split_without_dim(%x: tensor<4xf32, #dist.layout<@mesh, tp = S>>) {
  return
}

//===----------------------------------------------------------------------===//
// Checks shared by every collective: mesh, axis, layouts on the mesh
//===----------------------------------------------------------------------===//

