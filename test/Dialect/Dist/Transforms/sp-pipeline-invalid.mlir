// RUN: sp-opt %s -split-input-file -sp-pipeline="layers=1,2" -verify-diagnostics

// `layers` has one entry per stage.
dist.mesh @mesh ["pp" = 3, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @layers.0.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.1.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.2.w : tensor<8x8xf32> init normal(2.000000e-02)
// expected-error @+1 {{'func.func' op sp-pipeline: layers = 1,2 must give each of the 3 stages at least one layer, 3 in all (the model's layers)}}
func.func @fwd(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x0 = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %w0 = tfm.get_param @layers.0.w : tensor<8x8xf32>
  %x1 = tfm.linear %x0, %w0 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w1 = tfm.get_param @layers.1.w : tensor<8x8xf32>
  %x2 = tfm.linear %x1, %w1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w2 = tfm.get_param @layers.2.w : tensor<8x8xf32>
  %x3 = tfm.linear %x2, %w2 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %logits = tfm.linear %x3, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// ... and they sum to the number of layers.
dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @layers.0.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.1.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.2.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.3.w : tensor<8x8xf32> init normal(2.000000e-02)
// expected-error @+1 {{'func.func' op sp-pipeline: layers = 1,2 must give each of the 2 stages at least one layer, 4 in all (the model's layers)}}
func.func @fwd(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x0 = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %w0 = tfm.get_param @layers.0.w : tensor<8x8xf32>
  %x1 = tfm.linear %x0, %w0 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w1 = tfm.get_param @layers.1.w : tensor<8x8xf32>
  %x2 = tfm.linear %x1, %w1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w2 = tfm.get_param @layers.2.w : tensor<8x8xf32>
  %x3 = tfm.linear %x2, %w2 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w3 = tfm.get_param @layers.3.w : tensor<8x8xf32>
  %x4 = tfm.linear %x3, %w3 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %logits = tfm.linear %x4, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A stage holds at least one layer.
dist.mesh @mesh ["pp" = 4, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @layers.0.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.1.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.2.w : tensor<8x8xf32> init normal(2.000000e-02)
// expected-error @+1 {{'func.func' op sp-pipeline: 4 pipeline stages need at least as many layers, but the model has 3 (a parameter's layer is the first number in its name)}}
func.func @fwd(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x0 = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %w0 = tfm.get_param @layers.0.w : tensor<8x8xf32>
  %x1 = tfm.linear %x0, %w0 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w1 = tfm.get_param @layers.1.w : tensor<8x8xf32>
  %x2 = tfm.linear %x1, %w1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w2 = tfm.get_param @layers.2.w : tensor<8x8xf32>
  %x3 = tfm.linear %x2, %w2 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %logits = tfm.linear %x3, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Layers are numbered in the parameters' names: none here.
dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
// expected-error @+1 {{'func.func' op sp-pipeline: 2 pipeline stages need at least as many layers, but the model has 0 (a parameter's layer is the first number in its name)}}
func.func @fwd(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x0 = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %logits = tfm.linear %x0, %e : (tensor<4x2x8xf32>, tensor<16x8xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The forward is split once.
dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
// expected-error @+1 {{'func.func' op sp-pipeline: the forward is already split into pipeline stages}}
func.func @fwd_stage0(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  %z = tfm.fill 0.000000e+00 : tensor<f32>
  return %z : tensor<f32>
}
func.func @fwd_stage1(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %z = tfm.fill 0.000000e+00 : tensor<f32>
  return %z : tensor<f32>
}

// -----

// A pipeline mesh needs the forward to split.
// expected-error @+1 {{sp-pipeline: the module has no function marked tfm.forward}}
module {
  dist.mesh @mesh ["pp" = 2, "tp" = 1] roles [pipeline, tensor]
}
