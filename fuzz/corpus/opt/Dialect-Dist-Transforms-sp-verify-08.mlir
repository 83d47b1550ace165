
// A nonlinearity of a partial value.
dist.mesh @mesh ["tp" = 2]
func.func @gelu_of_partial(%p: tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>) -> tensor<4x1x8xf32> {
  // expected-error @+1 {{operand #0 is P on mesh axis 'tp': a nonlinear op of a partial value is not the op of the sum}}
  %y = tfm.gelu %p approximate none : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.all_reduce %y on @mesh["tp"] sum : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xf32>
  return %r : tensor<4x1x8xf32>
}

