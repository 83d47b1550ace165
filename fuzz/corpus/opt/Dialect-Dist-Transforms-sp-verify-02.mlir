
// Gathering a sequence shard along the wrong dimension.
dist.mesh @mesh ["tp" = 2]
func.func @gather_wrong_dim(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'dist.all_gather' op operand must be S(1) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(0)>}}
  %g = dist.all_gather %x on @mesh["tp"] dim 1 : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<2x4x8xf32>
  return %g : tensor<2x4x8xf32>
}

