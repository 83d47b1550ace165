// RUN: sp-opt %s -verify-diagnostics
// RUN: not sp-opt %s --canonicalize 2>&1 | FileCheck %s

// The index of an earlier sweep is not reused: @w's only read is dead and
// --canonicalize erases it, so the verification after the pass (a new
// sweep) rejects the second update, which the first sweep accepted.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
tfm.param @v : tensor<8x8xf32> init normal(0.02)
func.func @dead_read(%g: tensor<8x8xf32>, %s: tensor<f32>) -> tensor<8x8xf32> {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  %v = tfm.get_param @v : tensor<8x8xf32>
  tfm.sgd_update @v, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return %v : tensor<8x8xf32>
}
// CHECK: 'tfm.sgd_update' op updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it
