// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s
// RUN: sp-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD

// tfm.convert, the precision policy's cast: parsed, printed and parsed again
// (the second RUN line through the generic form); with --canonicalize only
// the identity folds (a round trip through a narrower type rounds).

// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[H:[a-z0-9_]+]]: tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, %[[F:[a-z0-9_]+]]: tensor<8xf16>)
func.func @convert(%x: tensor<8x2x16xf32>, %h: tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, %f: tensor<8xf16>)
    -> (tensor<8x2x16xbf16>, tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8xbf16>) {
  // CHECK: %[[A:.*]] = tfm.convert %[[X]] : tensor<8x2x16xf32> -> tensor<8x2x16xbf16>
  %0 = tfm.convert %x : tensor<8x2x16xf32> -> tensor<8x2x16xbf16>
  // CHECK: %[[B:.*]] = tfm.convert %[[H]] : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %1 = tfm.convert %h : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  // CHECK: %[[C:.*]] = tfm.convert %[[F]] : tensor<8xf16> -> tensor<8xbf16>
  %2 = tfm.convert %f : tensor<8xf16> -> tensor<8xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2 : tensor<8x2x16xbf16>, tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8xbf16>
}

// A convert to the operand's own type is the operand.
// FOLD-LABEL: func.func @identity
// FOLD-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x4xbf16>)
// FOLD-NEXT: return %[[X]] : tensor<8x4xbf16>
func.func @identity(%x: tensor<8x4xbf16>) -> tensor<8x4xbf16> {
  %0 = tfm.convert %x : tensor<8x4xbf16> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// f32 -> bf16 -> f32 rounds to bf16: both converts stay.
// FOLD-LABEL: func.func @round_trip
// FOLD-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x4xf32>)
// FOLD-NEXT: %[[N:.*]] = tfm.convert %[[X]] : tensor<8x4xf32> -> tensor<8x4xbf16>
// FOLD-NEXT: %[[W:.*]] = tfm.convert %[[N]] : tensor<8x4xbf16> -> tensor<8x4xf32>
// FOLD-NEXT: return %[[W]] : tensor<8x4xf32>
func.func @round_trip(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = tfm.convert %x : tensor<8x4xf32> -> tensor<8x4xbf16>
  %1 = tfm.convert %0 : tensor<8x4xbf16> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
