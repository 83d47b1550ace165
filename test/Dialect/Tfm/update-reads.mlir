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

// -----

// The third of three update ops in one function fails: the index built for
// the first serves the others, and its types decide.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
tfm.param @v : tensor<8x8xf32> init normal(0.02)
tfm.param @u : tensor<4x8xf32> init normal(0.02)
func.func @third(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  %v = tfm.get_param @v : tensor<8x8xf32>
  %u = tfm.get_param @u : tensor<4x8xf32>
  tfm.adamw_update @w, %g scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.sgd_update @v, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  // expected-error @+1 {{updates @u with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.sgd_update @u, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// A read after the update ops counts (the whole function is indexed).
tfm.param @w : tensor<8x8xf32> init normal(0.02)
tfm.param @v : tensor<8x8xf32> init normal(0.02)
func.func @read_after(%g: tensor<8x8xf32>, %s: tensor<f32>) -> tensor<8x8xf32> {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %v = tfm.get_param @v : tensor<8x8xf32>
  tfm.sgd_update @v, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  %w = tfm.get_param @w : tensor<8x8xf32>
  %sum = tfm.add %v, %w : tensor<8x8xf32>
  return %sum : tensor<8x8xf32>
}
