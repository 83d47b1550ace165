
// The data axis is found by its role, not its name: a data axis called
// "replica" is checked the same way.
dist.mesh @mesh ["replica" = 2, "model" = 2] roles [data, tensor]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, replica = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, replica = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step} {
  %r1 = dist.all_reduce %g1 on @mesh["replica"] sum : tensor<8x4xf32, #dist.layout<@mesh, replica = P>> -> tensor<8x4xf32>
  %r2 = dist.all_reduce %g2 on @mesh["replica"] sum : tensor<8x4xf32, #dist.layout<@mesh, replica = P>> -> tensor<8x4xf32>
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their data-parallel reduction over 'replica' (Megatron-LM #844): sum the members' contributions first, then reduce once}}
  %sum = tfm.add %r1, %r2 : tensor<8x4xf32>
  return %sum, %sum : tensor<8x4xf32>, tensor<8x4xf32>
}
