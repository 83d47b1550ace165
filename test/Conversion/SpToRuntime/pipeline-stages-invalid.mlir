// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime -verify-diagnostics

// A missing stage: two stages are announced, only stage 0 is there.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
// expected-error @+1 {{'func.func' op convert-sp-to-runtime: no function marked tfm.forward for pipeline stage 1 of 2}}
func.func @forward_stage0(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// Two functions for stage 1.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @a(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{'func.func' op convert-sp-to-runtime: a second function marked tfm.forward for pipeline stage 1 (the first is @a)}}
func.func @b(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// The stages must match the mesh's pipeline axis.
dist.mesh @mesh ["pp" = 4] roles [pipeline]
// expected-error @+1 {{'func.func' op convert-sp-to-runtime: the module has 2 step functions (pipeline stages) but the mesh's pipeline axis 'pp' has 4 ranks}}
func.func @forward_stage0(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_stage1(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// Stages without a pipeline axis.
dist.mesh @mesh ["dp" = 2] roles [data]
// expected-error @+1 {{'func.func' op convert-sp-to-runtime: the module has 2 step functions (pipeline stages) but the mesh's pipeline axis is absent}}
func.func @forward_stage0(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_stage1(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// The runtime calls every stage with one signature.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @forward_stage0(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{'func.func' op convert-sp-to-runtime: pipeline stage 1 (@forward_stage1) and stage 0 (@forward_stage0) differ in their arguments: the runtime calls every stage with one signature}}
func.func @forward_stage1(%ids: tensor<8x1xi64>, %labels: tensor<8x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// One table of hyperparameters: the stages must agree on the defaults.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @forward_stage0(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %lr = tfm.hyperparameter lr default 1.0e-1
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_stage1(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-error @+1 {{'tfm.hyperparameter' op gives hyperparameter 'lr' the default 2.000000e-01 but another step function gives it 1.000000e-01: the runtime passes one table}}
  %lr = tfm.hyperparameter lr default 2.0e-1
  %l = tfm.fill 0.0 : tensor<f32>
  return %l : tensor<f32>
}
