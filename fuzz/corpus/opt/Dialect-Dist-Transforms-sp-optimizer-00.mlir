// RUN: sp-opt %s -split-input-file -sp-optimizer="optimizer=sgd lr=0.1 weight-decay=0.01" | FileCheck %s --check-prefix=SGD
// RUN: sp-opt %s -split-input-file -sp-optimizer="optimizer=adamw lr=0.001 grad-clip=1.0" | FileCheck %s --check-prefix=ADAMW

// sp-optimizer on hand-written train steps (loss, grad...): it appends the
// global gradient norm (sums of squares, grouped by layout, split groups
// all-reduced once), the clip scale, one update per parameter and, with a
// distributed optimizer, the gather of each sharded parameter; the norm
// becomes the second result and the step is marked tfm.optimizer.

// Single device: both gradients are whole, one sum.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DW:[a-z0-9]+]]: tensor<4x8xf32>, %[[DB:[a-z0-9]+]]: tensor<8xf32>)
// SGD-SAME: -> (tensor<f32>, tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @b}) attributes {tfm.optimizer = #tfm.optimizer<sgd>, tfm.train_step}
// SGD: %[[S0:[0-9]+]] = tfm.sum_squares %[[DW]] : tensor<4x8xf32> -> tensor<f32>
// SGD-NEXT: %[[S1:[0-9]+]] = tfm.sum_squares %[[DB]] : tensor<8xf32> -> tensor<f32>
// SGD-NEXT: %[[SUM:[0-9]+]] = tfm.add %[[S0]], %[[S1]] : tensor<f32>
// SGD-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 0.000000e+00
// SGD-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[SUM]] max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
// SGD-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-01
// SGD-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 1.000000e-02
// SGD-NEXT: tfm.sgd_update @w, %[[DW]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<4x8xf32>, tensor<f32>
// SGD-NEXT: tfm.sgd_update @b, %[[DB]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
// SGD-NEXT: return %[[LOSS]], %[[NORM]], %[[DW]], %[[DB]] : tensor<f32>, tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
// ADAMW-LABEL: func.func @train_step
// ADAMW-SAME: attributes {tfm.optimizer = #tfm.optimizer<adamw>, tfm.train_step}
// ADAMW: %[[SUM:[0-9]+]] = tfm.add
// ADAMW-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 1.000000e+00
// ADAMW-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[SUM]] max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
// ADAMW-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-03
// ADAMW-NEXT: %beta1 = tfm.hyperparameter beta1 default 9.000000e-01
// ADAMW-NEXT: %beta2 = tfm.hyperparameter beta2 default 0.99899999999999999
// ADAMW-NEXT: %eps = tfm.hyperparameter eps default 1.000000e-08
// ADAMW-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 0.000000e+00
// ADAMW-NEXT: tfm.adamw_update @w, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<4x8xf32>, tensor<f32>
// ADAMW-NEXT: tfm.adamw_update @b, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
// ADAMW-NEXT: return %{{[a-z0-9]+}}, %[[NORM]],
tfm.param @w : tensor<4x8xf32> init ones
tfm.param @b : tensor<8xf32> init zeros
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4x8xf32>, %db: tensor<8xf32>)
    -> (tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @b}) attributes {tfm.train_step} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %b = tfm.get_param @b : tensor<8xf32>
  return %loss, %dw, %db : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
}

