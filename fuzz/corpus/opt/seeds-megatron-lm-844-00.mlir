// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics
//
// Megatron-LM #844: with a distributed optimizer and pipeline parallelism,
// the two copies of a tied embedding (first and last stage) must have their
// gradient contributions summed BEFORE the data-parallel reduce-scatter, or
// the copies get different gradients. Two params of one tie group stand for
// the two copies.

// The bug: each copy's gradient is reduce-scattered over dp, then the
// (differently partitioned) results are added.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step} {
  %r1, %r2 = dist.all_reduce_coalesced %g1, %g2 on @mesh["dp"] sum : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32>, tensor<8x4xf32>)
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their data-parallel reduction over 'dp' (Megatron-LM #844): sum the members' contributions first, then reduce once}}
  %sum = tfm.add %r1, %r2 : tensor<8x4xf32>
  return %sum, %sum : tensor<8x4xf32>, tensor<8x4xf32>
}

