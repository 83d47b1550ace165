// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime -verify-diagnostics

// Without a plan from sp-plan-buffers the lowering places the values one
// after the other; an arena past int64 bytes is an error at the value that
// does not fit, never a wrapped offset. Each embedding is 2^62 bytes.
tfm.param @w : tensor<8x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<536870912x536870912xi64>, %labels: tensor<536870912x536870912xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<536870912x536870912xi64>, tensor<8x4xf32>) -> tensor<536870912x536870912x4xf32>
  // expected-error @+1 {{'tfm.embedding' op result #0 (4611686018427387904 bytes) cannot be placed: the arena would exceed int64 bytes}}
  %y = tfm.embedding %ids, %w : (tensor<536870912x536870912xi64>, tensor<8x4xf32>) -> tensor<536870912x536870912x4xf32>
  %s = tfm.add %x, %y : tensor<536870912x536870912x4xf32>
  %l = tfm.cross_entropy %s, %labels ignore_index -100 : (tensor<536870912x536870912x4xf32>, tensor<536870912x536870912xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

