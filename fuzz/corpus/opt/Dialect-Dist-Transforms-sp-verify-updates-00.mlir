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

