
// Elementwise ops cannot even be written with mismatched layouts: their
// operand and result types must be equal.
dist.mesh @mesh ["tp" = 2]
func.func @add_mismatch(%a: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %b: tensor<2x1x8xf32>) -> tensor<2x1x8xf32> {
  // expected-error @+2 {{'tfm.add' op failed to infer returned types}}
  // expected-error @+1 {{'tfm.add' op inferred type(s) 'tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>' are incompatible with return type(s) of operation 'tensor<2x1x8xf32>'}}
  %y = "tfm.add"(%a, %b) : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  return %y : tensor<2x1x8xf32>
}

