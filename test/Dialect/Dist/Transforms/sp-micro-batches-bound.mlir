// RUN: sp-opt %s -sp-micro-batches="micro-batches=524289" -verify-diagnostics
// RUN: sp-opt %s -sp-micro-batches="micro-batches=524288" | FileCheck %s

// The bound on M: a step reads at most 2^20 sequences, so a batch of 2 has
// at most 524288 micro-batches; beyond is an error naming the option, the
// bound and why, before anything is built. At the bound the step is one
// loop like any other (its IR does not grow with M).
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: tensor<524288x4x2xi64>
// CHECK: tfm.micro_batch_loop
// CHECK-COUNT-1: tfm.embedding
// CHECK-NOT: tfm.embedding
tfm.param @w : tensor<8x2xf32> init ones
// expected-error @+1 {{'func.func' op sp-micro-batches: micro-batches=524289 is over the bound 524288: 524289 micro-batches of a batch of 2 sequences is more than 1048576 sequences (2^20) per step, far above the largest global batches trained}}
func.func @train_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.train_step} {
  %w = tfm.get_param @w : tensor<8x2xf32>
  %e = tfm.embedding %ids, %w : (tensor<4x2xi64>, tensor<8x2xf32>) -> tensor<4x2x2xf32>
  %l = tfm.cross_entropy %e, %labels ignore_index -100 : (tensor<4x2x2xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
