
// The Megatron-LM #844 shape of bug: under sequence parallelism each rank's
// LayerNorm weight gradient sums over its own sequence shard only, so it is
// partial; declaring it whole skips the all-reduce over tp and the replicas
// drift apart.
dist.mesh @mesh ["tp" = 2]
func.func @sp_norm_weight_grad(%dy: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                               %x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                               %w: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+1 {{'tfm.layer_norm_grad' op result #1 is R on mesh axis 'tp' but its operands make it P}}
  %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>)
  return %dx, %dw, %db : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>
}

