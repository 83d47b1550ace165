
// Correct: summed first, reduced once, one gradient for both copies.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step} {
  %sum = tfm.add %g1, %g2 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce_coalesced %sum on @mesh["dp"] sum : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<8x4xf32>
  return %r, %r : tensor<8x4xf32>, tensor<8x4xf32>
}

