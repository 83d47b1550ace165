
// A column-parallel GEMM's output gradient that is not split like its
// features.
dist.mesh @mesh ["tp" = 2]
func.func @column_dy_whole(%dy: tensor<4x1x8xf32>,
                           %w1: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'tfm.linear_grad_input' op operand #0 is R on mesh axis 'tp': the gradient of a column-parallel GEMM's output must be split like its features}}
  %dg = tfm.linear_grad_input %dy, %w1 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %dg : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}

