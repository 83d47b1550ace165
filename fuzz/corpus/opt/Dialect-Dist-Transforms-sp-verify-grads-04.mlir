
// A norm's backward fed a partial gradient.
dist.mesh @mesh ["tp" = 2]
func.func @norm_grad_partial(%dy: tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>,
                             %x: tensor<4x1x8xf32>, %w: tensor<8xf32>)
    -> tensor<4x1x8xf32> {
  // expected-error @+1 {{'tfm.rms_norm_grad' op operand #0 is P on mesh axis 'tp': must be sharded like the norm's input (R)}}
  %dx, %dw = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<4x1x8xf32>, tensor<8xf32>) -> (tensor<4x1x8xf32>, tensor<8xf32>)
  return %dx : tensor<4x1x8xf32>
}

