
// A result type that disagrees with what the operands make it.
dist.mesh @mesh ["tp" = 2]
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @wrong_result_layout(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32> {
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  // expected-error @+1 {{'tfm.rms_norm' op result #0 is R on mesh axis 'tp' but its operands make it S(0)}}
  %y = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32>
  return %y : tensor<2x1x8xf32>
}

