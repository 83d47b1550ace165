// RUN: sp-opt %s -split-input-file -verify-diagnostics

// `master` on an f32 parameter: it is its own master weight.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @f32_param(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{keeps an f32 master weight of @w, which is stored in 'f32': `master` needs a bf16 or f16 parameter}}
  tfm.sgd_update @w, %g master scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// `master` with a bf16 gradient: the master is updated in f32.
tfm.param @w : tensor<8x8xbf16> init normal(0.02)
func.func @bf16_grad(%g: tensor<8x8xbf16>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xbf16>
  %lr = tfm.hyperparameter lr default 0.1
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.95
  %eps = tfm.hyperparameter eps default 1.0e-8
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates the f32 master weight of @w with a gradient of type 'tensor<8x8xbf16>': `master` needs an f32 gradient}}
  tfm.adamw_update @w, %g master scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8x8xbf16>, tensor<f32>
  return
}

// -----

// A bf16 parameter updated from an f32 gradient without `master`: the
// diagnostic says what is missing.
tfm.param @w : tensor<8x8xbf16> init normal(0.02)
func.func @no_master(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xbf16>
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it (a 'bf16' parameter updated from an f32 gradient needs `master`: the optimizer's f32 master weight)}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// `master` with a gradient of another shape than the parameter's reads.
tfm.param @w : tensor<8x8xbf16> init normal(0.02)
func.func @other_shape(%g: tensor<8x4xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xbf16>
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x4xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g master scale %s lr %lr weight_decay %weight_decay : tensor<8x4xf32>, tensor<f32>
  return
}
