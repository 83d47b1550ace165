
// The GPT-NeoX #1257 shape of bug: a row-parallel output normalised before
// it is reduced.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @norm_of_partial(%a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w2 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  // expected-error @+1 {{'tfm.rms_norm' op operand #0 (from tfm.linear) is P on mesh axis 'tp': a norm of a partial value is not the norm of the sum; all-reduce or reduce-scatter it first}}
  %n = tfm.rms_norm %p, %w eps 1.0e-06 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %n : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}

