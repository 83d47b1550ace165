
// The input gradient of a column-parallel GEMM declared whole: the
// all-reduce (or reduce-scatter under SP) in the backward is missing.
dist.mesh @mesh ["tp" = 2]
func.func @missing_backward_reduce(%da: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>,
                                   %w1: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  // expected-error @+1 {{'tfm.linear_grad_input' op result #0 is R on mesh axis 'tp' but its operands make it P}}
  %dg = tfm.linear_grad_input %da, %w1 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32>
  return %dg : tensor<4x1x8xf32>
}

