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

// -----

// A backward op in a forward: backward ops have no backward of their own.
// CHECK: error: 'tfm.gelu_grad' op has no gradient rule in tfm-autodiff{{$}}
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  // expected-error @+1 {{'tfm.gelu_grad' op has no gradient rule in tfm-autodiff}}
  %y = tfm.gelu_grad %x, %x approximate tanh : tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// tfm-autodiff takes the module's one mesh (dist::getMesh), as every SPMD
// pass does: a second mesh is an error at it.
// CHECK: error: 'dist.mesh' op is a second mesh
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'dist.mesh' op is a second mesh, but the SPMD passes take a module with at most one (mesh @mesh is the first)}}
dist.mesh @grid ["tp" = 2]
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// With pipeline stages each step has the gradients of the parameters its
// stage reads: a parameter no stage reads would have none.
dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
tfm.param @w : tensor<4xf32> init ones
// expected-error @+1 {{'tfm.param' op is never read by any pipeline stage of the forward: it has no gradient (remove it from the model)}}
tfm.param @unused : tensor<4xf32> init ones
func.func @fwd_stage0(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %w = tfm.get_param @w : tensor<4xf32>
  dist.send %w on @mesh["pp"] offset 1 : tensor<4xf32>
  %z = tfm.fill 0.000000e+00 : tensor<f32>
  return %z : tensor<f32>
}
func.func @fwd_stage1(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %z = tfm.fill 0.000000e+00 : tensor<f32>
  return %z : tensor<f32>
}
