// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics
//
// sp-verify's gradient-accounting proof (docs/design.md): the gradient of
// each parameter reaching its update is the sum of the contributions of all
// its uses (tfm-autodiff's `tfm.contributes` tags, counted in
// `tfm.grad_uses`), each counted once per micro-batch and summed over every
// mesh axis where it was partial. The seeds megatron-lm-844.mlir and
// gpt-neox-1257.mlir hold the tie-group and partial-sum cases.

// Sums commute: two uses of one parameter, each all-reduced on its own and
// then added, are the same sum as reducing their sum once.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>, %b: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 2 : i64}} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %c1 = tfm.scale %b by 1.0 {tfm.contributes = ["w#1"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r0 = dist.all_reduce %c0 on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  %r1 = dist.all_reduce %c1 on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  %g = tfm.add %r0, %r1 : tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

// A dropped use: tfm.grad_uses says two, the gradient sums one.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>, %b: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 2 : i64}} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %c1 = tfm.scale %b by 1.0 {tfm.contributes = ["w#1"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r0 = dist.all_reduce %c0 on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  // expected-error @+1 {{'func.return' op the gradient of @w reaching its update misses the contribution of use #1 of @w}}
  return %r0 : tensor<8xf32>
}

// -----

// Another parameter's contribution in the gradient.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
tfm.param @v : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>, %b: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @v}) attributes {tfm.train_step, tfm.grad_uses = {w = 1 : i64, v = 1 : i64}} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %c1 = tfm.scale %b by 1.0 {tfm.contributes = ["v#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %s = tfm.add %c0, %c1 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r, %rv = dist.all_reduce_coalesced %s, %c1 on @mesh["dp"] sum : (tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32>, tensor<8xf32>)
  // expected-error @+1 {{'func.return' op the gradient of @w reaching its update contains the contribution of use #0 of @v, another parameter's}}
  return %r, %rv : tensor<8xf32>, tensor<8xf32>
}

// -----

// Micro-batches: each use's contribution is accumulated once per
// micro-batch (the clones keep the tag), then reduced once.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>, %b: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 1 : i64}, tfm.micro_batches = 2 : i64} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %c0b = tfm.scale %b by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %s = tfm.add %c0, %c0b : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce %s on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// ... and one micro-batch left out.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 1 : i64}, tfm.micro_batches = 2 : i64} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce %c0 on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  // expected-error @+1 {{'func.return' op the gradient of @w reaching its update counts the contribution of use #0 of @w 1 times, expected 2 (one per micro-batch)}}
  return %r : tensor<8xf32>
}

// -----

// An op that combines contributions some other way: not proven.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>, %b: tensor<8xf32>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 1 : i64}} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %r = dist.all_reduce %c0 on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  // expected-note @+1 {{combined here}}
  %m = tfm.mul %r, %b : tensor<8xf32>
  // expected-error @+1 {{'func.return' op the gradient of @w reaching its update cannot be proven to be the sum of its contributions: 'tfm.mul' combines gradient contributions in a way the proof does not follow}}
  return %m : tensor<8xf32>
}

// -----

// The mean of partial contributions is no sum of them.
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 1 : i64}} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  // expected-note @+1 {{combined here}}
  %r = dist.all_reduce %c0 on @mesh["dp"] mean : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  // expected-error @+1 {{'dist.all_reduce' combines gradient contributions in a way the proof does not follow}}
  return %r : tensor<8xf32>
}

// -----

// One device (no mesh): the contributions are still counted.
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%a: tensor<8xf32>) -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.grad_uses = {w = 1 : i64}} {
  %c0 = tfm.scale %a by 1.0 {tfm.contributes = ["w#0"]} : tensor<8xf32>
  %g = tfm.add %c0, %c0 : tensor<8xf32>
  // expected-error @+1 {{'func.return' op the gradient of @w reaching its update counts the contribution of use #0 of @w 2 times, expected 1}}
  return %g : tensor<8xf32>
}
