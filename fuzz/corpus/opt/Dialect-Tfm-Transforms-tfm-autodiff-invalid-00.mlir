// RUN: sp-opt %s -split-input-file -tfm-autodiff -verify-diagnostics
// RUN: not sp-opt %s -split-input-file -tfm-autodiff 2>&1 | FileCheck %s

// Ops tfm-autodiff has no backward rule for (DifferentiableOpInterface) are
// rejected where they stand, with the plain message: sp-opt registers dist's
// transposes (registerAllDialects), so the message does not blame a missing
// registration.

// A dist collective without a transpose: sp-partition never puts an
// all_to_all in a forward.
// CHECK: error: 'dist.all_to_all' op has no gradient rule in tfm-autodiff{{$}}
dist.mesh @mesh ["tp" = 2]
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<8x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  // expected-error @+1 {{'dist.all_to_all' op has no gradient rule in tfm-autodiff}}
  %y = dist.all_to_all %x on @mesh["tp"] split 2 concat 0 : tensor<4x1x8xf32> -> tensor<8x1x4xf32>
  %loss = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<8x1x4xf32>, tensor<8x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

