// RUN: sp-opt %s -split-input-file --tfm-fuse-elementwise | FileCheck %s

// A dropout whose only use is an add fuses with it, whichever operand of
// the add it is; the residual is the add's other operand and the fused op
// keeps the dropout's rate, stream and discardable attributes.
// CHECK-LABEL: func.func @fuses
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x32xf32>, %[[R:.*]]: tensor<8x2x32xf32>, %[[Z:.*]]: tensor<8x2x32xbf16>, %[[S:.*]]: tensor<8x2x32xbf16>)
// CHECK-NEXT: %[[A:.*]] = tfm.dropout_add %[[X]], %[[R]] rate 1.000000e-01 stream 3 {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xf32>
// CHECK-NEXT: %[[B:.*]] = tfm.dropout_add %[[X]], %[[A]] rate 2.000000e-01 stream 4 : tensor<8x2x32xf32>
// CHECK-NEXT: %[[C:.*]] = tfm.dropout_add %[[Z]], %[[S]] rate 0.000000e+00 stream 5 : tensor<8x2x32xbf16>
// CHECK-NEXT: return %[[B]], %[[C]]
func.func @fuses(%x: tensor<8x2x32xf32>, %r: tensor<8x2x32xf32>,
                 %z: tensor<8x2x32xbf16>, %s: tensor<8x2x32xbf16>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xbf16>) {
  %d = tfm.dropout %x rate 1.0e-01 stream 3 {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xf32>
  %a = tfm.add %r, %d {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xf32>
  %e = tfm.dropout %x rate 2.0e-01 stream 4 : tensor<8x2x32xf32>
  %b = tfm.add %e, %a : tensor<8x2x32xf32>
  %f = tfm.dropout %z rate 0.0 stream 5 : tensor<8x2x32xbf16>
  %c = tfm.add %s, %f : tensor<8x2x32xbf16>
  return %b, %c : tensor<8x2x32xf32>, tensor<8x2x32xbf16>
}

// -----

// Left alone: a dropout the program still reads, an add of a dropout with
// itself, a pair whose discardable attributes differ (another
// micro-batch), a dropout of rank 4, and a dropout feeding a multiply.
// CHECK-LABEL: func.func @keeps
// CHECK-NOT: tfm.dropout_add
// CHECK-COUNT-5: tfm.dropout {{.*}}
// CHECK-NOT: tfm.dropout_add
func.func @keeps(%x: tensor<8x2x32xf32>, %r: tensor<8x2x32xf32>,
                 %w: tensor<2x4x2x32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>,
        tensor<8x2x32xf32>, tensor<2x4x2x32xf32>, tensor<8x2x32xf32>) {
  %d0 = tfm.dropout %x rate 1.0e-01 stream 1 : tensor<8x2x32xf32>
  %a0 = tfm.add %r, %d0 : tensor<8x2x32xf32>
  %d1 = tfm.dropout %x rate 1.0e-01 stream 2 : tensor<8x2x32xf32>
  %a1 = tfm.add %d1, %d1 : tensor<8x2x32xf32>
  %d2 = tfm.dropout %x rate 1.0e-01 stream 3 {tfm.in_micro_batch = 0 : i64} : tensor<8x2x32xf32>
  %a2 = tfm.add %r, %d2 {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xf32>
  %d3 = tfm.dropout %w rate 1.0e-01 stream 4 : tensor<2x4x2x32xf32>
  %a3 = tfm.add %w, %d3 : tensor<2x4x2x32xf32>
  %d4 = tfm.dropout %x rate 1.0e-01 stream 5 : tensor<8x2x32xf32>
  %m = tfm.mul %r, %d4 : tensor<8x2x32xf32>
  return %a0, %d0, %a1, %a2, %a3, %m : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<2x4x2x32xf32>, tensor<8x2x32xf32>
}
