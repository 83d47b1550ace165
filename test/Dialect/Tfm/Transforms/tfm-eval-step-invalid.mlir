// RUN: sp-opt %s -split-input-file -tfm-eval-step -verify-diagnostics

// expected-error @+1 {{tfm-eval-step: the module has no function marked tfm.forward}}
module {
  func.func @f(%ids: tensor<4x2xi64>) -> tensor<4x2xi64> {
    return %ids : tensor<4x2xi64>
  }
}

// -----

// expected-error @+1 {{tfm-eval-step: the module has an evaluation step already}}
func.func @eval_step(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.eval_step} {
  %zero = tfm.fill 0.000000e+00 : tensor<f32>
  return %zero : tensor<f32>
}
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %zero = tfm.fill 0.000000e+00 : tensor<f32>
  return %zero : tensor<f32>
}

// -----

// expected-error @+1 {{'tfm.param' op carries 'tfm.eval_step', which belongs on a function}}
tfm.param @w : tensor<8xf32> init ones {tfm.eval_step}
