// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics
//
// Megatron-LM #844 with real pipeline parallelism: the tied embedding @wte
// is read by stage 0 (the embedding) and stage 1 (the LM head), one
// tfm.param read by both stage functions. Each `tfm.scale ... {tfm.contributes
// = ["wte#0"]}` stands for the op tfm-autodiff tagged as that stage's
// contribution (partial over the data axis). The two copies must get the
// same gradient: the stages exchange their contributions over the pipeline
// axis and add them BEFORE the data-parallel reduce-scatter of ZeRO-1.
// sp-verify's proof runs both stage functions together: a dist.recv holds
// what its matched dist.send sent.

// The bug as it happened: each stage reduce-scatters its contribution over
// the data axis, then the (differently partitioned) slices are exchanged
// and added.
dist.mesh @mesh ["pp" = 2, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %c on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  dist.send %r on @mesh["pp"] offset 1 : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  %o = dist.recv on @mesh["pp"] offset 1 : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  %sum = tfm.add %r, %o : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %sum : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}
func.func @train_step_stage1(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %c on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  dist.send %r on @mesh["pp"] offset -1 : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  %o = dist.recv on @mesh["pp"] offset -1 : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  // expected-error @+1 {{'tfm.add' op adds the gradients of @wte's copies on pipeline stages 0 and 1 after their reduction over data axis 'dp' (2 ranks) (Megatron-LM #844): exchange and add the stages' contributions first, then reduce once}}
  %sum = tfm.add %o, %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %sum : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}

// -----

// No exchange: each copy gets only its own stage's contribution.
dist.mesh @mesh ["pp" = 2, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %c on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  // expected-error @+1 {{'func.return' op the gradient of @wte reaching its update misses the contribution of @wte on pipeline stage 1}}
  return %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}
func.func @train_step_stage1(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %c on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}

// -----

// Exchanged twice: stage 0 adds stage 1's contribution two times.
dist.mesh @mesh ["pp" = 2, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %c on @mesh["pp"] offset 1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %o = dist.recv on @mesh["pp"] offset 1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %o2 = dist.recv on @mesh["pp"] offset 1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %s = tfm.add %c, %o : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %sum = tfm.add %s, %o2 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %sum on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  // expected-error @+1 {{'func.return' op the gradient of @wte reaching its update counts the contribution of use #0 of @wte on pipeline stage 1 2 times, expected 1}}
  return %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}
func.func @train_step_stage1(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %c on @mesh["pp"] offset -1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %c on @mesh["pp"] offset -1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %o = dist.recv on @mesh["pp"] offset -1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %sum = tfm.add %o, %c : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %sum on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}

// -----

// Correct (what sp-sync-grads emits): exchanged, added in stage order,
// then reduce-scattered once.
dist.mesh @mesh ["pp" = 2, "dp" = 2] roles [pipeline, data]
tfm.param @wte : tensor<8x4xf32> init normal(2.000000e-02)
func.func @train_step_stage0(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %c on @mesh["pp"] offset 1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %o = dist.recv on @mesh["pp"] offset 1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %sum = tfm.add %c, %o : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %sum on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}
func.func @train_step_stage1(%g: tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @wte}) attributes {tfm.train_step, tfm.zero, tfm.grad_uses = {wte = 1 : i64}, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["wte#0"]} : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  dist.send %c on @mesh["pp"] offset -1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %o = dist.recv on @mesh["pp"] offset -1 : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %sum = tfm.add %o, %c : tensor<8x4xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.reduce_scatter_coalesced %sum on @mesh["dp"] : (tensor<8x4xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
  return %r : tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>
}
