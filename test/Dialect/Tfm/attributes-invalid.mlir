// RUN: sp-opt %s -split-input-file -verify-diagnostics
// RUN: not sp-opt %s -split-input-file --tfm-autodiff 2>&1 | FileCheck %s --check-prefix=AUTODIFF

// The attributes passes exchange are declared by their dialect (tfm:
// TfmDialect.td, dist: DistDialect.td) and checked wherever they appear:
// one case per rule.

// expected-error @+1 {{'func.func' op 'tfm.forward' must be a unit attribute}}
func.func @f() attributes {tfm.forward = 1} {
  return
}

// -----

// expected-error @+1 {{'tfm.fill' op carries 'tfm.zero', which belongs on a function}}
%0 = tfm.fill 0.0 {tfm.zero} : tensor<f32>

// -----

// A string is no longer the optimizer: the enum attribute is.
// expected-error @+1 {{'func.func' op 'tfm.optimizer' must be #tfm.optimizer<adamw | sgd>, got "adamw"}}
func.func @f() attributes {tfm.optimizer = "adamw"} {
  return
}

// -----

// expected-error @+2 {{expected ::seqpar::OptimizerKind to be one of: adamw, sgd}}
// expected-error @+1 {{failed to parse Tfm_OptimizerAttr parameter 'value'}}
func.func @f() attributes {tfm.optimizer = #tfm.optimizer<lamb>} {
  return
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.model_type', which belongs on the module}}
func.func @f() attributes {tfm.model_type = "gpt2"} {
  return
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.grad_of', which belongs on a function result}}
func.func @f() attributes {tfm.grad_of = @w} {
  return
}

// -----

// expected-error @+1 {{'func.func' op carries the unknown attribute 'tfm.gradof' (see the tfm dialect's attributes)}}
func.func @f() attributes {tfm.gradof = @w} {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0: 'tfm.grad_of' must name a tfm.param (@name)}}
func.func @f(%x: tensor<f32>) -> (tensor<f32> {tfm.grad_of = "w"}) {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 carries 'tfm.grad_of', which is not an argument attribute}}
func.func @f(%x: tensor<f32> {tfm.grad_of = @w}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.backward_begins', which belongs on a tfm.fill}}
func.func @f() attributes {tfm.backward_begins} {
  return
}

// -----

// expected-error @+1 {{'tfm.fill' op 'dist.arena_offsets' must be an array<i64> of one offset per result (1)}}
%0 = tfm.fill 0.0 {dist.arena_offsets = array<i64: 0, 64>} : tensor<f32>

// -----

// expected-error @+1 {{'func.func' op 'dist.arena_bytes' must be a non-negative integer}}
func.func @f() attributes {dist.arena_bytes = -64} {
  return
}

// -----

// Only ops whose kernel may need a workspace (WorkspaceOpInterface) carry
// its offset.
// expected-error @+1 {{'tfm.fill' op carries 'dist.workspace_offset', but its runtime kernel has no workspace to place}}
%0 = tfm.fill 0.0 {dist.workspace_offset = 0 : i64} : tensor<4xf32>

// -----

dist.mesh @mesh ["tp" = 2]
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'dist.all_gather' op 'dist.workspace_offset' must be a non-negative i64 offset}}
  %g = dist.all_gather %x on @mesh["tp"] dim 1 {dist.workspace_offset = -64 : i64} : tensor<2x4xf32> -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}

// -----

dist.mesh @mesh ["tp" = 2]
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'dist.all_gather' op 'dist.workspace_offset' must be a non-negative i64 offset}}
  %g = dist.all_gather %x on @mesh["tp"] dim 1 {dist.workspace_offset = 64 : i32} : tensor<2x4xf32> -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}

// -----

// Two functions marked as the forward: tfm-autodiff does not guess.
// AUTODIFF: error: 'func.func' op tfm-autodiff: a second function marked tfm.forward (the first is @f)
func.func @f(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %0 = tfm.fill 0.0 : tensor<f32>
  return %0 : tensor<f32>
}
func.func @g(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %0 = tfm.fill 0.0 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.recompute' must be #tfm.recompute<none | selective | full>, got #tfm.optimizer<sgd>}}
module attributes {tfm.recompute = #tfm.optimizer<sgd>} {
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.recompute', which belongs on the module}}
func.func @f() attributes {tfm.recompute = #tfm.recompute<full>} {
  return
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.recomputed', which belongs on an op of a function}}
func.func @f() attributes {tfm.recomputed} {
  return
}

// -----

// expected-error @+1 {{'tfm.fill' op 'tfm.recomputed' must be a unit attribute}}
%0 = tfm.fill 0.0 {tfm.recomputed = 1} : tensor<f32>

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.precision' must be "f32", "bf16" or "f16", got "fp16"}}
module attributes {tfm.precision = "fp16"} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.precision' must be "f32", "bf16" or "f16", got 16 : i64}}
module attributes {tfm.precision = 16} {
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.precision', which belongs on the module}}
func.func @f() attributes {tfm.precision = "bf16"} {
  return
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.loss_scaling' must be a unit attribute}}
module attributes {tfm.loss_scaling = true} {
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.loss_scaling', which belongs on the module}}
func.func @f() attributes {tfm.loss_scaling} {
  return
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.hf_config', which belongs on the module}}
func.func @f() attributes {tfm.hf_config = "{}"} {
  return
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.hf_base_prefix' must be a string}}
module attributes {tfm.hf_base_prefix = ["transformer."]} {
}

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.hf_buffers', which belongs on the module}}
func.func @f() attributes {tfm.hf_buffers = [".attn.bias"]} {
  return
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.hf_buffers' must be an array of non-empty strings}}
module attributes {tfm.hf_buffers = [".attn.bias", ""]} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.hf_buffers' must be an array of non-empty strings}}
module attributes {tfm.hf_buffers = ".attn.bias"} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.hf_config' must be a string}}
module attributes {tfm.hf_config = 1} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.hf_config' is not JSON: }}
module attributes {tfm.hf_config = "{\"model_type\": "} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'tfm.hf_config' must be a JSON object}}
module attributes {tfm.hf_config = "[1, 2]"} {
}

// -----

// Gradient accounting (tfm-autodiff's record, sp-verify's proof).
// expected-error @+1 {{'tfm.fill' op 'tfm.contributes' must be an array with one entry per result (1)}}
%0 = tfm.fill 0.0 {tfm.contributes = [unit, "w#0"]} : tensor<f32>

// -----

// expected-error @+1 {{'tfm.fill' op 'tfm.contributes': entry "w" is neither unit nor a contribution "param#use"}}
%0 = tfm.fill 0.0 {tfm.contributes = ["w"]} : tensor<f32>

// -----

// expected-error @+1 {{'func.func' op carries 'tfm.contributes', which belongs on an op of a function}}
func.func @f() attributes {tfm.contributes = []} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'tfm.grad_uses': the uses of 'w' must be an integer >= 0}}
func.func @f() attributes {tfm.grad_uses = {w = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tfm.fill' op carries 'tfm.grad_uses', which belongs on a function}}
%0 = tfm.fill 0.0 {tfm.grad_uses = {}} : tensor<f32>

// -----

// expected-error @+1 {{'func.func' op 'tfm.micro_batches' must be an i64 >= 1, got 0 : i64}}
func.func @f() attributes {tfm.micro_batches = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'tfm.pipeline_stages' must be an i64 >= 1, got 0 : i64}}
func.func @f() attributes {tfm.pipeline_stages = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'tfm.pipeline_stage' needs 'tfm.pipeline_stages' on the same function}}
func.func @f() attributes {tfm.pipeline_stage = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'tfm.pipeline_stage' = 2 is not below the number of stages 2}}
func.func @f() attributes {tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{'tfm.fill' op carries 'tfm.pipeline_stage', which belongs on a function}}
%0 = tfm.fill 0.0 {tfm.pipeline_stage = 0 : i64} : tensor<f32>
