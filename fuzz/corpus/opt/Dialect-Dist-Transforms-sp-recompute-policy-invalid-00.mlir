// RUN: sp-opt %s -sp-recompute=policy=partial -verify-diagnostics

// The policy is one of none, selective, full (lowercase), named in the error.
// expected-error @+1 {{sp-recompute: policy must be none, selective or full, got 'partial'}}
module {
  func.func @train_step(%x: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
    %one = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
    return %x : tensor<f32>
  }
}
