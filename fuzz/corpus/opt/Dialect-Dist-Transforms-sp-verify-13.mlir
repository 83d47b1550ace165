
// A layout naming an axis the mesh does not have.
dist.mesh @mesh ["tp" = 2]
func.func @unknown_axis(%x: tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>> {
  // expected-error @+1 {{'tfm.silu' op layout of operand #0 names axis 'dp' that mesh @mesh does not have}}
  %y = tfm.silu %x : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
  return %y : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
}

