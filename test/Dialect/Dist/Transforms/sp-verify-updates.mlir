// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics | FileCheck %s

// sp-verify proves that a train step with an optimizer updates every
// parameter it has a gradient for (a result marked tfm.grad_of) exactly once
// per step, with that gradient, and nothing else. Running sp-optimizer twice
// used to double every update silently.

// One update per parameter, each with its own gradient; a tie group's two
// members share one gradient and each is updated once. Verifies unchanged.
// CHECK-LABEL: func.func @train_step
// CHECK-COUNT-3: tfm.sgd_update
tfm.param @w : tensor<8xf32> init zeros
tfm.param @a : tensor<4xf32> init zeros tie "t"
tfm.param @b : tensor<4xf32> init zeros tie "t"
func.func @train_step(%gw: tensor<8xf32>, %gt: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<4xf32> {tfm.grad_of = @a},
        tensor<4xf32> {tfm.grad_of = @b}) attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  %a = tfm.get_param @a : tensor<4xf32>
  %b = tfm.get_param @b : tensor<4xf32>
  tfm.sgd_update @w, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  tfm.sgd_update @a, %gt scale %s lr %lr weight_decay %weight_decay : tensor<4xf32>, tensor<f32>
  tfm.sgd_update @b, %gt scale %s lr %lr weight_decay %weight_decay : tensor<4xf32>, tensor<f32>
  return %gw, %gt, %gt : tensor<8xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A step without an optimizer (tfm-autodiff's output) updates nothing.
// CHECK-LABEL: func.func @gradients_only
tfm.param @w : tensor<8xf32> init zeros
func.func @gradients_only(%gw: tensor<8xf32>) -> (tensor<8xf32> {tfm.grad_of = @w}) {
  return %gw : tensor<8xf32>
}

// -----

// Two updates of one parameter (sp-optimizer run twice, or a hand edit).
tfm.param @w : tensor<8xf32> init zeros
func.func @train_step(%gw: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<adamw>} {
  %lr = tfm.hyperparameter lr default 1.0e-3
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-8
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  // expected-note @+1 {{the first update of @w}}
  tfm.adamw_update @w, %gw scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  // expected-error-re @+1 {{'tfm.adamw_update' op updates parameter @w a second time: the 'tfm.adamw_update' at {{.*}}sp-verify-updates.mlir{{.*}}:14:3 already updates it, and a parameter is updated exactly once per step}}
  tfm.adamw_update @w, %gw scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw : tensor<8xf32>
}

// -----

// A parameter whose gradient exists but is never applied.
tfm.param @w : tensor<8xf32> init zeros
tfm.param @v : tensor<4xf32> init zeros
// expected-error @+1 {{'func.func' op never updates parameter @v, whose gradient it returns as result #1: every parameter with a gradient is updated exactly once per step}}
func.func @train_step(%gw: tensor<8xf32>, %gv: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<4xf32> {tfm.grad_of = @v})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  %v = tfm.get_param @v : tensor<4xf32>
  tfm.sgd_update @w, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw, %gv : tensor<8xf32>, tensor<4xf32>
}

// -----

// The optimizer mark without any update: every gradient is missing one.
tfm.param @w : tensor<8xf32> init zeros
// expected-error @+1 {{'func.func' op never updates parameter @w, whose gradient it returns as result #0}}
func.func @train_step(%gw: tensor<8xf32>) -> (tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  return %gw : tensor<8xf32>
}

// -----

// An update of a parameter the step has no gradient for.
tfm.param @w : tensor<8xf32> init zeros
tfm.param @v : tensor<8xf32> init zeros
func.func @train_step(%gw: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  %v = tfm.get_param @v : tensor<8xf32>
  tfm.sgd_update @w, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  // expected-error @+1 {{'tfm.sgd_update' op updates parameter @v, but @train_step returns no gradient of it (no result has tfm.grad_of = @v)}}
  tfm.sgd_update @v, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw : tensor<8xf32>
}

// -----

// Each parameter updated once, but with the other's gradient.
tfm.param @w : tensor<8xf32> init zeros
tfm.param @v : tensor<8xf32> init zeros
func.func @train_step(%gw: tensor<8xf32>, %gv: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @v})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  %v = tfm.get_param @v : tensor<8xf32>
  // expected-error @+1 {{'tfm.sgd_update' op updates parameter @w with a value that is not its gradient, result #0 of @train_step}}
  tfm.sgd_update @w, %gv scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  tfm.sgd_update @v, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw, %gv : tensor<8xf32>, tensor<8xf32>
}

// -----

// Two results claiming to be the gradient of one parameter.
tfm.param @w : tensor<8xf32> init zeros
// expected-error @+1 {{'func.func' op returns two gradients of parameter @w, results #0 and #1}}
func.func @train_step(%g0: tensor<8xf32>, %g1: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  tfm.sgd_update @w, %g0 scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %g0, %g1 : tensor<8xf32>, tensor<8xf32>
}
