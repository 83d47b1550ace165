// RUN: sp-opt %s -split-input-file -verify-diagnostics

// tfm.relu and tfm.relu_grad reject what tfm.silu and tfm.silu_grad reject.

func.func @relu_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.relu' op requires the same type for all operands and results}}
  %0 = "tfm.relu"(%x) : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}

