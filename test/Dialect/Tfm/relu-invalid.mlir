// RUN: sp-opt %s -split-input-file -verify-diagnostics

// tfm.relu and tfm.relu_grad reject what tfm.silu and tfm.silu_grad reject.

func.func @relu_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.relu' op requires the same type for all operands and results}}
  %0 = "tfm.relu"(%x) : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @relu_integer(%x: tensor<8x16xi64>) {
  // expected-error @+1 {{'tfm.relu' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi64>'}}
  %0 = tfm.relu %x : tensor<8x16xi64>
  return
}

// -----

func.func @relu_grad_input_type(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x44xf32>) {
  // expected-error @+1 {{'tfm.relu_grad' op failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.relu_grad"(%dy, %x) : (tensor<8x2x88xf32>, tensor<8x2x44xf32>) -> tensor<8x2x88xf32>
  return
}

// -----

func.func @relu_grad_result_type(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x88xf32>) {
  // expected-error @+1 {{'tfm.relu_grad' op failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.relu_grad"(%dy, %x) : (tensor<8x2x88xf32>, tensor<8x2x88xf32>) -> tensor<8x2x88xf16>
  return
}
