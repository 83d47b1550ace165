// RUN: sp-opt %s -split-input-file -sp-micro-batches="micro-batches=2" -verify-diagnostics

// sp-micro-batches sums gradients before they are reduced and applied: a
// step sp-optimizer already built is rejected.
tfm.param @w : tensor<4xf32> init ones
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> (tensor<f32>, tensor<4xf32> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %g = tfm.get_param @w : tensor<4xf32>
  %lr = tfm.hyperparameter lr default 1.000000e-03
  %wd = tfm.hyperparameter weight_decay default 0.000000e+00
  %s = tfm.fill 1.000000e+00 : tensor<f32>
  // expected-error @+1 {{'tfm.sgd_update' op sp-micro-batches runs before sp-sync-grads and sp-optimizer}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %wd : tensor<4xf32>, tensor<f32>
  return %s, %g : tensor<f32>, tensor<4xf32>
}

// -----

// The inputs are [s, b] token ids and labels.
tfm.param @w : tensor<4xf32> init ones
// expected-error @+1 {{'func.func' op sp-micro-batches: argument #1 must be [s, b] i64 token ids or labels, got 'tensor<4xi64>'}}
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4xi64>) -> tensor<f32> attributes {tfm.train_step} {
  %s = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  return %s : tensor<f32>
}

// -----

// Only the loss and gradients can be summed over micro-batches.
// expected-error @+1 {{'func.func' op sp-micro-batches: result #1 is neither the loss (result #0, a scalar) nor a parameter gradient (tfm.grad_of); it cannot be summed over micro-batches}}
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> (tensor<f32>, tensor<f32>) attributes {tfm.train_step} {
  %s = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  return %s, %s : tensor<f32>, tensor<f32>
}

// -----

// A gradient that reads no micro-batch is not a sum over micro-batches.
tfm.param @w : tensor<4xf32> init ones
// expected-error @+1 {{'func.func' op sp-micro-batches: result #1 does not depend on the micro-batch; it cannot be summed over micro-batches}}
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> (tensor<f32>, tensor<4xf32> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %g = tfm.get_param @w : tensor<4xf32>
  %s = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
  return %s, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Unrolled twice: an error, not four copies.
func.func @train_step(%ids: tensor<2x4x1xi64>, %labels: tensor<2x4x1xi64>) -> tensor<f32> attributes {tfm.train_step, tfm.micro_batches = 2 : i64} {
  // expected-error @+1 {{'tfm.micro_batch' op sp-micro-batches: the step is unrolled already (the op carries 'tfm.in_micro_batch')}}
  %i = tfm.micro_batch %ids[0] {tfm.in_micro_batch = 0 : i64} : tensor<2x4x1xi64> -> tensor<4x1xi64>
  %s = tfm.fill 1.000000e+00 {tfm.backward_begins, tfm.in_micro_batch = 0 : i64} : tensor<f32>
  return %s : tensor<f32>
}

// -----

// A step that loops over its micro-batches already: an error, not a loop
// in a loop.
func.func @train_step(%ids: tensor<2x4x1xi64>, %labels: tensor<2x4x1xi64>) -> tensor<f32> attributes {tfm.train_step, tfm.micro_batches = 2 : i64} {
  // expected-error @+1 {{'tfm.micro_batch_loop' op sp-micro-batches: the step loops over its micro-batches already}}
  %s = tfm.micro_batch_loop(%ids, %labels) : (tensor<2x4x1xi64>, tensor<2x4x1xi64>) -> tensor<f32> {
  ^bb0(%i: tensor<4x1xi64>, %l: tensor<4x1xi64>):
    %x = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    tfm.yield %x : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// A forward program has nothing to accumulate.
// expected-error @+1 {{sp-micro-batches: micro-batches=2 needs a train step (tfm-autodiff's)}}
module {
  func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
    %s = tfm.fill 1.000000e+00 : tensor<f32>
    return %s : tensor<f32>
  }
}
