// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics
//
// Megatron-LM #844: with a distributed optimizer and pipeline parallelism,
// the two copies of a tied embedding (first and last stage) must have their
// gradient contributions summed BEFORE the data-parallel reduce-scatter, or
// the copies get different gradients. Two params of one tie group stand for
// the two copies; each `tfm.scale ... {tfm.contributes = [...]}` stands for
// the op tfm-autodiff tagged as the contribution of one use of a copy (its
// gradient partial over the data axis), and `tfm.grad_uses` records how
// many uses each copy had. sp-verify's gradient-accounting proof follows the
// contributions along the dataflow, whatever lies between.

// The bug as it happened: ZeRO-1, each copy's gradient is reduce-scattered
// over the data axis, then the (differently partitioned) slices are added.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}, tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r1, %r2 = dist.reduce_scatter_coalesced %c1, %c2 on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>)
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their reduction over data axis 'dp' (2 ranks) (Megatron-LM #844): sum the members' contributions first, then reduce once}}
  %sum = tfm.add %r1, %r2 : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %sum, %sum : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}

// -----

// ZeRO-1 with context parallelism shards over the data and context axes:
// each copy's gradient reduced over dp, then reduce-scattered over cp, and
// the slices added is the same bug (the first axis reduced is named).
dist.mesh @mesh ["dp" = 2, "cp" = 2] roles [data, context]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, cp = P, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, cp = P, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>> {tfm.grad_of = @wte}, tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, cp = P, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, cp = P, dp = P>>
  %d1, %d2 = dist.all_reduce_coalesced %c1, %c2 on @mesh["dp"] sum : (tensor<8x4xf32, #dist.layout<@mesh, cp = P, dp = P>>, tensor<8x4xf32, #dist.layout<@mesh, cp = P, dp = P>>) -> (tensor<8x4xf32, #dist.layout<@mesh, cp = P>>, tensor<8x4xf32, #dist.layout<@mesh, cp = P>>)
  %r1, %r2 = dist.reduce_scatter_coalesced %d1, %d2 on @mesh["cp"] : (tensor<8x4xf32, #dist.layout<@mesh, cp = P>>, tensor<8x4xf32, #dist.layout<@mesh, cp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>)
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their reduction over data axis 'dp' (2 ranks) (Megatron-LM #844)}}
  %sum = tfm.add %r1, %r2 : tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>
  return %sum, %sum : tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>
}

// -----

// The same with the context axis reduced alone (no data axis): under
// tfm.zero the context axis is one of the optimizer's and is checked.
dist.mesh @mesh ["cp" = 2] roles [context]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, cp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, cp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>> {tfm.grad_of = @wte}, tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, cp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, cp = P>>
  %r1, %r2 = dist.reduce_scatter_coalesced %c1, %c2 on @mesh["cp"] : (tensor<8x4xf32, #dist.layout<@mesh, cp = P>>, tensor<8x4xf32, #dist.layout<@mesh, cp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>)
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their reduction over context axis 'cp' (2 ranks) (Megatron-LM #844): sum the members' contributions first, then reduce once}}
  %sum = tfm.add %r1, %r2 : tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>
  return %sum, %sum : tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, cp = S(0)>>
}

// -----

// An op between the reduction and the sum (here the scale of an unscaled
// loss) hides nothing: the proof follows the contributions through it.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r1, %r2 = dist.all_reduce_coalesced %c1, %c2 on @mesh["dp"] sum : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32>, tensor<8x4xf32>)
  %s1 = tfm.scale %r1 by 5.000000e-01 : tensor<8x4xf32>
  %w1 = tfm.convert %s1 : tensor<8x4xf32> -> tensor<8x4xbf16>
  %n1 = tfm.convert %w1 : tensor<8x4xbf16> -> tensor<8x4xf32>
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their reduction over data axis 'dp' (2 ranks) (Megatron-LM #844)}}
  %sum = tfm.add %n1, %r2 : tensor<8x4xf32>
  return %sum, %sum : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// The data axis is found by its role, not its name: a data axis called
// "replica" is checked the same way.
dist.mesh @mesh ["replica" = 2, "model" = 2] roles [data, tensor]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, replica = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, replica = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, replica = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, replica = P>>
  %r1 = dist.all_reduce %c1 on @mesh["replica"] sum : tensor<8x4xf32, #dist.layout<@mesh, replica = P>> -> tensor<8x4xf32>
  %r2 = dist.all_reduce %c2 on @mesh["replica"] sum : tensor<8x4xf32, #dist.layout<@mesh, replica = P>> -> tensor<8x4xf32>
  // expected-error @+1 {{'tfm.add' op adds gradients of tie group 'embeddings' after their reduction over data axis 'replica' (2 ranks) (Megatron-LM #844)}}
  %sum = tfm.add %r1, %r2 : tensor<8x4xf32>
  return %sum, %sum : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// No tie-group sum at all: each copy gets only its own contributions.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r1, %r2 = dist.all_reduce_coalesced %c1, %c2 on @mesh["dp"] sum : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32>, tensor<8x4xf32>)
  // expected-error @+1 {{'func.return' op the gradient of @wte reaching its update misses the contribution of @lm_head (tie group 'embeddings')}}
  return %r1, %r2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A contribution counted twice: added to the group's sum a second time.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %s = tfm.add %c1, %c2 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %twice = tfm.add %s, %c2 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce %twice on @mesh["dp"] sum : tensor<8x4xf32, #dist.layout<@mesh, dp = P>> -> tensor<8x4xf32>
  // expected-error @+1 {{'func.return' op the gradient of @wte reaching its update counts the contribution of use #0 of @lm_head 2 times, expected 1}}
  return %r, %r : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A contribution counted twice: summed over the data axis a second time
// (the second reduction's types carry no layout, so only the proof sees it).
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x4xf32> {tfm.grad_of = @wte}, tensor<8x4xf32> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %s = tfm.add %c1, %c2 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce %s on @mesh["dp"] sum : tensor<8x4xf32, #dist.layout<@mesh, dp = P>> -> tensor<8x4xf32>
  // expected-note @+1 {{summed again here}}
  %again = dist.all_reduce %r on @mesh["dp"] sum : tensor<8x4xf32> -> tensor<8x4xf32>
  // expected-error @+1 {{'func.return' op the gradient of @wte reaching its update counts the contribution of use #0 of @wte 2 times over mesh axis 'dp' (role data, 2 ranks): it is summed there where it is already whole}}
  return %again, %again : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// Correct: summed first, reduced once (here by ZeRO-1's reduce-scatter),
// one gradient for both copies.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
tfm.param @lm_head : tensor<8x4xf32> init normal(2.000000e-02) tie "embeddings"
func.func @train_step(%g1: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>, %g2: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}, tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @lm_head}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64, lm_head = 1 : i64}} {
  %c1 = tfm.scale %g1 by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %c2 = tfm.scale %g2 by 1.0 {tfm.contributes = ["lm_head#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %sum = tfm.add %c1, %c2 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %sum on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %r, %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}
