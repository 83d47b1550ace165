// RUN: sp-opt %s -split-input-file -verify-diagnostics

// An update op's parameter must be read by its function with the gradient's
// type (TfmOptimizerOps.cpp). The reads are indexed once per function and
// verification sweep: these cases check that the index of one function or
// of an earlier sweep is never used for another.

// Each update op is checked against its own function's reads: @b reads @v
// but not @w, which only @a reads.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
tfm.param @v : tensor<8x8xf32> init normal(0.02)
func.func @a(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  %v = tfm.get_param @v : tensor<8x8xf32>
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.sgd_update @v, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}
func.func @b(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %v = tfm.get_param @v : tensor<8x8xf32>
  tfm.sgd_update @v, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

