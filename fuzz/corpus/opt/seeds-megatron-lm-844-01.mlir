
// Copies that receive different gradients.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step} {
  %r1, %r2 = dist.all_reduce_coalesced %g1, %g2 on @mesh["dp"] sum : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32>, tensor<8x4xf32>)
  // expected-error @+1 {{'func.return' op the members of tie group 'embeddings' (@lm_head and @wte) receive different gradients; they must share one, the sum of every member's contributions}}
  return %r1, %r2 : tensor<8x4xf32>, tensor<8x4xf32>
}

