// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of the backward ops (tfm-autodiff) and the
// optimizer ops (sp-optimizer).

//===----------------------------------------------------------------------===//
// tfm.linear_grad_input
//===----------------------------------------------------------------------===//

func.func @weight_rank(%dy: tensor<8x2x48xf32>, %w: tensor<48xf32>) {
  // expected-error @+1 {{the weight must have rank 2 and dy rank >= 1}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x48xf32>, tensor<48xf32>) -> tensor<8x2x16xf32>
  return
}

