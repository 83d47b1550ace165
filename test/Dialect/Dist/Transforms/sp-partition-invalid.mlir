// RUN: sp-opt %s -split-input-file -sp-partition="tp=4 dp=2" -verify-diagnostics

// sp-partition rejects shapes the mesh cannot split evenly, at the op or
// function that holds them.

// A column GEMM's 6 output features cannot be split over tp = 4.
tfm.param @fc.weight : tensor<8x6xf32> init normal(2.000000e-02)
tfm.param @proj.weight : tensor<6x8xf32> init normal(2.000000e-02)
func.func @mlp(%x: tensor<4x2x8xf32>) -> tensor<4x2x8xf32> {
  %w1 = tfm.get_param @fc.weight : tensor<8x6xf32>
  // expected-error @+1 {{'tfm.linear' op cannot split output features (6) over tp = 4}}
  %h = tfm.linear %x, %w1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x6xf32>) -> tensor<4x2x6xf32>
  %a = tfm.gelu %h approximate tanh : tensor<4x2x6xf32>
  %w2 = tfm.get_param @proj.weight : tensor<6x8xf32>
  %y = tfm.linear %a, %w2 weight_layout in_out : (tensor<4x2x6xf32>, tensor<6x8xf32>) -> tensor<4x2x8xf32>
  return %y : tensor<4x2x8xf32>
}

// -----

// A batch of 3 cannot be split over dp = 2.
// expected-error @+1 {{'func.func' op cannot split the batch of argument #0 ('tensor<4x3x8xf32>') over dp = 2}}
func.func @batch(%x: tensor<4x3x8xf32>, %l: tensor<4x3xi64>) -> tensor<f32> {
  %y = tfm.cross_entropy %x, %l ignore_index -100 : (tensor<4x3x8xf32>, tensor<4x3xi64>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// A function with an arena plan (sp-plan-buffers ran): the ops partition
// rebuilds would lose their offsets (a fuzzer's find).
// expected-error @+1 {{sp-partition: @planned already has an arena plan (dist.arena_bytes): partition before sp-plan-buffers}}
func.func @planned(%x: tensor<4x2x8xf32>, %l: tensor<4x2xi64>) -> tensor<f32>
    attributes {dist.arena_bytes = 64 : i64, dist.arena_max_live = 64 : i64} {
  %y = tfm.cross_entropy %x, %l ignore_index -100 {dist.arena_offsets = array<i64: 0>} : (tensor<4x2x8xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %y : tensor<f32>
}
