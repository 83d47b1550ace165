// RUN: sp-opt %s -split-input-file -sp-optimizer -verify-diagnostics

// sp-optimizer runs once per step: a step that already updates a
// parameter is rejected (running it twice would apply every update twice).
tfm.param @w : tensor<4xf32> init ones
// expected-error @+1 {{'func.func' op already has its optimizer step: parameter @w is already updated by 'tfm.sgd_update' (sp-optimizer runs once per step)}}
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<f32>, tensor<4xf32> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %lr = tfm.hyperparameter lr default 1.000000e-01
  %weight_decay = tfm.hyperparameter weight_decay default 0.000000e+00
  %w = tfm.get_param @w : tensor<4xf32>
  // expected-note @+1 {{the existing update}}
  tfm.sgd_update @w, %dw scale %s lr %lr weight_decay %weight_decay : tensor<4xf32>, tensor<f32>
  return %loss, %dw : tensor<f32>, tensor<4xf32>
}

// -----

// The same when only the step's mark is left.
tfm.param @w : tensor<4xf32> init ones
// expected-error @+1 {{'func.func' op already has its optimizer step (tfm.optimizer = #tfm.optimizer<adamw>); sp-optimizer runs once per step}}
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<adamw>} {
  %w = tfm.get_param @w : tensor<4xf32>
  return %loss, %dw : tensor<f32>, tensor<4xf32>
}

// -----

// A step that returns no gradient has nothing to update.
// expected-error @+1 {{'func.func' op has no parameter gradients to apply}}
func.func @train_step(%loss: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
  return %loss : tensor<f32>
}
