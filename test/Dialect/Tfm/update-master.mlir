// RUN: sp-opt %s -split-input-file | FileCheck %s
// RUN: sp-opt %s -split-input-file | sp-opt -split-input-file | FileCheck %s

// An update with `master`: a bf16 (f16) parameter read in its type, an f32
// gradient of its shape or of a slice of its first dimension; it prints
// back as parsed.
// CHECK-LABEL: func.func @sliced
// CHECK: tfm.adamw_update @w, %{{.*}} master scale %{{.*}} lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<f32>
// CHECK-NEXT: tfm.sgd_update @h, %{{.*}} master scale %{{.*}} lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<4x8xbf16> init normal(0.02)
tfm.param @h : tensor<8xf16> init ones
func.func @sliced(%g: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, %gh: tensor<8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<4x8xbf16>
  %h = tfm.get_param @h : tensor<8xf16>
  %lr = tfm.hyperparameter lr default 0.1
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.95
  %eps = tfm.hyperparameter eps default 1.0e-8
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  tfm.adamw_update @w, %g master scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<f32>
  tfm.sgd_update @h, %gh master scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return
}
