// RUN: sp-opt %s -split-input-file -verify-diagnostics

// tfm.convert changes the element type only.

func.func @convert_shape(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tfm.convert' op changes only the element type: the result must have the operand's shape and layout, got 'tensor<8x4xf32>' -> 'tensor<4x8xbf16>'}}
  %0 = tfm.convert %x : tensor<8x4xf32> -> tensor<4x8xbf16>
  return
}

// -----

func.func @convert_layout(%x: tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{'tfm.convert' op changes only the element type: the result must have the operand's shape and layout, got 'tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>>' -> 'tensor<8x4xbf16, #dist.layout<@mesh, tp = P>>'}}
  %0 = tfm.convert %x : tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xbf16, #dist.layout<@mesh, tp = P>>
  return
}

// -----

func.func @convert_dropped_layout(%x: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{'tfm.convert' op changes only the element type: the result must have the operand's shape and layout}}
  %0 = tfm.convert %x : tensor<8x4xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32>
  return
}

// -----

func.func @convert_integer(%x: tensor<8x4xi64>) {
  // expected-error @+1 {{'tfm.convert' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x4xi64>'}}
  %0 = tfm.convert %x : tensor<8x4xi64> -> tensor<8x4xf32>
  return
}
