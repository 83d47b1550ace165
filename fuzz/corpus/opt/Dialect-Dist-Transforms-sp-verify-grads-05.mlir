
// Weight gradient from an input and an output gradient split over
// different tokens.
dist.mesh @mesh ["tp" = 2]
func.func @tokens_mismatch(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                           %dy: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'tfm.linear_grad_weight' op operand #1 is S(1) on mesh axis 'tp': must be split over the tokens like the input (S(0))}}
  %dw = tfm.linear_grad_weight %x, %dy : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
  return %dw : tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
}

