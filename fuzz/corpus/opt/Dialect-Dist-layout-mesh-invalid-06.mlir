
// sp-verify checks every op's types against the module's mesh.
dist.mesh @mesh ["tp" = 2]
func.func @tfm_other_mesh(%x: tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>>) -> tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>> {
  // expected-error @+1 {{'tfm.relu' op layout of operand #0 names mesh @grid but is used on mesh @mesh}}
  %0 = tfm.relu %x : tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>>
  return %0 : tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>>
}

