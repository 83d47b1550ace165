// RUN: sp-opt %s -split-input-file -sp-legalize-precision | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-legalize-precision="storage-gemms=false storage-rows=false" | FileCheck %s --check-prefix=WRAP
// RUN: sp-opt %s -split-input-file -sp-legalize-precision -o %t.once.mlir
// RUN: sp-opt %t.once.mlir -split-input-file -sp-legalize-precision -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// A bf16 gradient that is only widened into an f32 master weight's
// gradient contribution (tfm.contributes: the backward of
// tfm-master-weights' convert) is written in f32 by its op, unrounded, and
// the widening goes (Megatron-LM accumulates weight gradients in fp32): a
// weight gradient without a bias, an embedding's, a norm's weight, and a
// weight gradient with the bias gradient of its dy when both are only
// widened (tfm-fuse-epilogues makes them one GEMM, whose outputs have one
// type: both f32). Kept as stored and widened after: a result another op
// reads too, and so a weight gradient whose bias gradient is kept (c.w,
// c.b), whose pair must keep one type; a second weight gradient of the same
// dy (s.w) does not hold back the first (a.w). Wrapped ops (WRAP) fold the
// same widenings, so both give the same values.
// CHECK-LABEL: func.func @contributions
// CHECK: %[[DW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} {tfm.contributes = ["a.w#0"]} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xf32>
// CHECK-NEXT: %[[DT:.*]] = tfm.embedding_grad %{{.*}}, %{{.*}} {tfm.contributes = ["e.w#0"]} : (tensor<4x2xi64>, tensor<4x2x8xbf16>) -> tensor<32x8xf32>
// CHECK-NEXT: %[[BW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} {tfm.contributes = ["b.w#0"]} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xf32>
// CHECK-NEXT: %[[DB:.*]] = tfm.bias_grad %{{.*}} {tfm.contributes = ["b.b#0"]} : tensor<4x2x16xbf16> -> tensor<16xf32>
// CHECK-NEXT: %[[SW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
// CHECK-NEXT: %[[SW32:.*]] = tfm.convert %[[SW]] {tfm.contributes = ["s.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK-NEXT: %[[CW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
// CHECK-NEXT: %[[CB:.*]] = tfm.bias_grad %{{.*}} : tensor<4x2x16xbf16> -> tensor<16xbf16>
// CHECK-NEXT: %[[CW32:.*]] = tfm.convert %[[CW]] {tfm.contributes = ["c.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK-NEXT: %[[CB32:.*]] = tfm.convert %[[CB]] {tfm.contributes = ["c.b#0"]} : tensor<16xbf16> -> tensor<16xf32>
// CHECK-NEXT: return %[[DW]], %[[DT]], %[[BW]], %[[DB]], %[[SW32]], %[[SW]], %[[CW32]], %[[CB32]], %[[CB]]
// WRAP-LABEL: func.func @contributions
// WRAP: %[[DW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} {tfm.contributes = ["a.w#0"]} : (tensor<4x2x8xf32>, tensor<4x2x16xf32>) -> tensor<16x8xf32>
// WRAP-NOT: tfm.convert %[[DW]]
// WRAP: %[[DT:.*]] = tfm.embedding_grad %{{.*}}, %{{.*}} {tfm.contributes = ["e.w#0"]} : (tensor<4x2xi64>, tensor<4x2x8xf32>) -> tensor<32x8xf32>
// WRAP-NOT: tfm.convert %[[DT]]
// WRAP: %[[BW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} {tfm.contributes = ["b.w#0"]} : (tensor<4x2x8xf32>, tensor<4x2x16xf32>) -> tensor<16x8xf32>
// WRAP-NOT: tfm.convert %[[BW]]
// WRAP: %[[DB:.*]] = tfm.bias_grad %{{.*}} {tfm.contributes = ["b.b#0"]} : tensor<4x2x16xf32> -> tensor<16xf32>
// WRAP: tfm.convert %{{.*}} {tfm.contributes = ["s.w#0"]}
// The kept pair's weight gradient is rounded and widened, as kept:
// WRAP: %[[CW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xf32>, tensor<4x2x16xf32>) -> tensor<16x8xf32>
// WRAP-NEXT: %[[CW16:.*]] = tfm.convert %[[CW]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// WRAP: tfm.convert %[[CW16]] {tfm.contributes = ["c.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
// WRAP: return %[[DW]], %[[DT]], %[[BW]], %[[DB]]
func.func @contributions(%x: tensor<4x2x8xbf16>, %dy: tensor<4x2x16xbf16>, %ids: tensor<4x2xi64>, %dx: tensor<4x2x8xbf16>, %dyb: tensor<4x2x16xbf16>, %dyc: tensor<4x2x16xbf16>) -> (tensor<16x8xf32>, tensor<32x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16x8xf32>, tensor<16x8xbf16>, tensor<16x8xf32>, tensor<16xf32>, tensor<16xbf16>) {
  %dw = tfm.linear_grad_weight %x, %dy : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
  %dw32 = tfm.convert %dw {tfm.contributes = ["a.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
  %dt = tfm.embedding_grad %ids, %dx : (tensor<4x2xi64>, tensor<4x2x8xbf16>) -> tensor<32x8xbf16>
  %dt32 = tfm.convert %dt {tfm.contributes = ["e.w#0"]} : tensor<32x8xbf16> -> tensor<32x8xf32>
  %bw = tfm.linear_grad_weight %x, %dyb : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
  %db = tfm.bias_grad %dyb : tensor<4x2x16xbf16> -> tensor<16xbf16>
  %bw32 = tfm.convert %bw {tfm.contributes = ["b.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
  %db32 = tfm.convert %db {tfm.contributes = ["b.b#0"]} : tensor<16xbf16> -> tensor<16xf32>
  %sw = tfm.linear_grad_weight %x, %dy : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
  %sw32 = tfm.convert %sw {tfm.contributes = ["s.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
  %cw = tfm.linear_grad_weight %x, %dyc : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
  %cb = tfm.bias_grad %dyc : tensor<4x2x16xbf16> -> tensor<16xbf16>
  %cw32 = tfm.convert %cw {tfm.contributes = ["c.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
  %cb32 = tfm.convert %cb {tfm.contributes = ["c.b#0"]} : tensor<16xbf16> -> tensor<16xf32>
  return %dw32, %dt32, %bw32, %db32, %sw32, %sw, %cw32, %cb32, %cb : tensor<16x8xf32>, tensor<32x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16x8xf32>, tensor<16x8xbf16>, tensor<16x8xf32>, tensor<16xf32>, tensor<16xbf16>
}
