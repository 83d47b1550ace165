// RUN: sp-opt %s -split-input-file --tfm-fuse-epilogues | FileCheck %s
// RUN: sp-opt %s -split-input-file --tfm-fuse-epilogues --tfm-fuse-epilogues | FileCheck %s

// A GELU of a linear's result fuses with the linear, with or without a bias,
// in either weight layout and GELU form, f32 or bf16. The fused op's pre
// replaces the linear's result for its other readers (the GELU's gradient);
// its result replaces the GELU's. Discardable attributes are kept.
// CHECK-LABEL: func.func @fuses
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x32xbf16>, %[[W:.*]]: tensor<32x128xbf16>, %[[B:.*]]: tensor<128xbf16>, %[[V:.*]]: tensor<128x32xf32>, %[[XF:.*]]: tensor<8x2x32xf32>, %[[DY:.*]]: tensor<8x2x128xbf16>)
// CHECK-NEXT: %[[PRE:.*]], %[[Y:.*]] = tfm.linear_gelu %[[X]], %[[W]], %[[B]] weight_layout in_out approximate tanh {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<32x128xbf16>, tensor<128xbf16>) -> (tensor<8x2x128xbf16>, tensor<8x2x128xbf16>)
// CHECK-NEXT: %[[PRE2:.*]], %[[Z:.*]] = tfm.linear_gelu %[[XF]], %[[V]] approximate none : (tensor<8x2x32xf32>, tensor<128x32xf32>) -> (tensor<8x2x128xf32>, tensor<8x2x128xf32>)
// CHECK-NEXT: %[[DX:.*]] = tfm.gelu_grad %[[DY]], %[[PRE]] approximate tanh
// CHECK-NEXT: return %[[Y]], %[[Z]], %[[DX]]
func.func @fuses(%x: tensor<8x2x32xbf16>, %w: tensor<32x128xbf16>,
                 %b: tensor<128xbf16>, %v: tensor<128x32xf32>,
                 %xf: tensor<8x2x32xf32>, %dy: tensor<8x2x128xbf16>)
    -> (tensor<8x2x128xbf16>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>) {
  %h = tfm.linear %x, %w, %b weight_layout in_out {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<32x128xbf16>, tensor<128xbf16>) -> tensor<8x2x128xbf16>
  %y = tfm.gelu %h approximate tanh {tfm.in_micro_batch = 1 : i64} : tensor<8x2x128xbf16>
  %g = tfm.linear %xf, %v : (tensor<8x2x32xf32>, tensor<128x32xf32>) -> tensor<8x2x128xf32>
  %z = tfm.gelu %g approximate none : tensor<8x2x128xf32>
  %dx = tfm.gelu_grad %dy, %h approximate tanh : tensor<8x2x128xbf16>
  return %y, %z, %dx : tensor<8x2x128xbf16>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>
}

// -----

// Left alone: a GELU of an f32 copy of a bf16 GEMM's result, of a block
// argument, a pair whose discardable
// attributes differ (a recomputed GELU), and a linear feeding a SiLU.
// CHECK-LABEL: func.func @keeps
// CHECK-NOT: tfm.linear_gelu
// CHECK-COUNT-3: tfm.linear {{.*}}
// CHECK-NOT: tfm.linear_gelu
func.func @keeps(%x: tensor<8x2x32xbf16>, %w: tensor<32x128xbf16>,
                 %p: tensor<8x2x128xf32>)
    -> (tensor<8x2x128xf32>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>,
        tensor<8x2x128xbf16>) {
  %h = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<32x128xbf16>) -> tensor<8x2x128xbf16>
  %c = tfm.convert %h : tensor<8x2x128xbf16> -> tensor<8x2x128xf32>
  %y = tfm.gelu %c approximate tanh : tensor<8x2x128xf32>
  %z = tfm.gelu %p approximate tanh : tensor<8x2x128xf32>
  %g = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<32x128xbf16>) -> tensor<8x2x128xbf16>
  %r = tfm.gelu %g approximate tanh {tfm.recomputed} : tensor<8x2x128xbf16>
  %s0 = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x32xbf16>, tensor<32x128xbf16>) -> tensor<8x2x128xbf16>
  %s = tfm.silu %s0 : tensor<8x2x128xbf16>
  return %y, %z, %r, %s : tensor<8x2x128xf32>, tensor<8x2x128xf32>, tensor<8x2x128xbf16>, tensor<8x2x128xbf16>
}
