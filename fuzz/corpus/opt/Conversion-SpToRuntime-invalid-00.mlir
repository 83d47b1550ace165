// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime -verify-diagnostics

// The CPU runtime computes in f32.
tfm.param @w : tensor<8x4xbf16> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  // expected-error @+1 {{'tfm.get_param' op uses 'bf16': the CPU runtime computes in f32 (import with --dtype f32)}}
  %w = tfm.get_param @w : tensor<8x4xbf16>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x4xbf16>) -> tensor<4x1x4xbf16>
  %l = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x4xbf16>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

