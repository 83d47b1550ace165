// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics
//
// GPT-NeoX #1257 as a case of sp-verify's gradient-accounting proof: with
// sequence parallelism a LayerNorm's weight gradient (the contribution
// tfm-autodiff tags on layer_norm_grad's dweight, here a tagged tfm.scale)
// is partial over the tensor axis as well as the data axis: each rank saw
// only its sequence shard. Reducing it over the data axis alone leaves each
// tensor-parallel rank with its own part; the copies of the weight diverge.
// gpt-neox-1257.test runs the real pipeline.

dist.mesh @mesh ["dp" = 2, "tp" = 2] roles [data, tensor]
tfm.param @ln.weight : tensor<32xf32> init ones
func.func @train_step(%g: tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>) -> (tensor<32xf32, #dist.layout<@mesh, tp = P>> {tfm.grad_of = @ln.weight}) attributes {tfm.train_step, tfm.grad_uses = {ln.weight = 1 : i64}} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["ln.weight#0"]} : tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>
  %r = dist.all_reduce %c on @mesh["dp"] sum : tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<32xf32, #dist.layout<@mesh, tp = P>>
  // expected-error @+1 {{'func.return' op the gradient of @ln.weight reaching its update is not summed over mesh axis 'tp' (role tensor, 2 ranks): each rank holds only its contribution (GPT-NeoX #1257); all-reduce it over 'tp' first (sp-sync-grads)}}
  return %r : tensor<32xf32, #dist.layout<@mesh, tp = P>>
}

// -----

// The axis is found by its role: a tensor axis named "model" is the same.
dist.mesh @mesh ["replica" = 2, "model" = 4] roles [data, tensor]
tfm.param @ln.weight : tensor<32xf32> init ones
func.func @train_step(%g: tensor<32xf32, #dist.layout<@mesh, replica = P, model = P>>) -> (tensor<32xf32, #dist.layout<@mesh, model = P>> {tfm.grad_of = @ln.weight}) attributes {tfm.train_step, tfm.grad_uses = {ln.weight = 1 : i64}} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["ln.weight#0"]} : tensor<32xf32, #dist.layout<@mesh, replica = P, model = P>>
  %r = dist.all_reduce %c on @mesh["replica"] sum : tensor<32xf32, #dist.layout<@mesh, replica = P, model = P>> -> tensor<32xf32, #dist.layout<@mesh, model = P>>
  // expected-error @+1 {{the gradient of @ln.weight reaching its update is not summed over mesh axis 'model' (role tensor, 4 ranks)}}
  return %r : tensor<32xf32, #dist.layout<@mesh, model = P>>
}

// -----

// Fixed: summed over both axes (in either order), whatever lies between.
dist.mesh @mesh ["dp" = 2, "tp" = 2] roles [data, tensor]
tfm.param @ln.weight : tensor<32xf32> init ones
func.func @train_step(%g: tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>) -> (tensor<32xf32> {tfm.grad_of = @ln.weight}) attributes {tfm.train_step, tfm.grad_uses = {ln.weight = 1 : i64}} {
  %c = tfm.scale %g by 1.0 {tfm.contributes = ["ln.weight#0"]} : tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>
  %n = tfm.convert %c : tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<32xbf16, #dist.layout<@mesh, dp = P, tp = P>>
  %t = dist.all_reduce_coalesced %n on @mesh["tp"] sum : (tensor<32xbf16, #dist.layout<@mesh, dp = P, tp = P>>) -> tensor<32xbf16, #dist.layout<@mesh, dp = P>>
  %d = dist.all_reduce %t on @mesh["dp"] sum : tensor<32xbf16, #dist.layout<@mesh, dp = P>> -> tensor<32xbf16>
  %w = tfm.convert %d : tensor<32xbf16> -> tensor<32xf32>
  return %w : tensor<32xf32>
}
