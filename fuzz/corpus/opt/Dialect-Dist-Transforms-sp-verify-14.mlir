
// Layouts without a mesh.
func.func @no_mesh(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  // expected-error @+1 {{'tfm.silu' op uses layouts but the module has no dist.mesh}}
  %y = tfm.silu %x : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %y : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}
