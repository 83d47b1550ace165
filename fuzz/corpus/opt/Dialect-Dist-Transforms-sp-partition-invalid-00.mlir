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

