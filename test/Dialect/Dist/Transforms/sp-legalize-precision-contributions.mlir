// RUN: sp-opt %s -split-input-file -sp-legalize-precision | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-legalize-precision="storage-gemms=false storage-rows=false" | FileCheck %s --check-prefix=WRAP
// RUN: sp-opt %s -split-input-file -sp-legalize-precision -o %t.once.mlir
// RUN: sp-opt %t.once.mlir -split-input-file -sp-legalize-precision -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// A bf16 gradient that is only widened into an f32 master weight's
// gradient contribution (tfm.contributes: the backward of
// tfm-master-weights' convert) is written in f32 by its op, unrounded, and
// the widening goes (Megatron-LM accumulates weight gradients in fp32): a
// weight gradient without a bias, an embedding's, a norm's weight. Kept as
// stored and widened after: a bias gradient and the weight gradient whose
// dy it reads (tfm-fuse-epilogues makes them one GEMM of one type), and a
// result another op reads too. Wrapped ops (WRAP) fold the same widenings,
// so both give the same values.
// CHECK-LABEL: func.func @contributions
// CHECK: %[[DW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xf32>
// CHECK-NEXT: %[[DT:.*]] = tfm.embedding_grad %{{.*}}, %{{.*}} : (tensor<4x2xi64>, tensor<4x2x8xbf16>) -> tensor<32x8xf32>
// CHECK-NEXT: %[[BW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
// CHECK-NEXT: %[[DB:.*]] = tfm.bias_grad %{{.*}} : tensor<4x2x16xbf16> -> tensor<16xbf16>
// CHECK-NEXT: %[[BW32:.*]] = tfm.convert %[[BW]] {tfm.contributes = ["b.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK-NEXT: %[[DB32:.*]] = tfm.convert %[[DB]] {tfm.contributes = ["b.b#0"]} : tensor<16xbf16> -> tensor<16xf32>
// CHECK-NEXT: %[[SW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xbf16>, tensor<4x2x16xbf16>) -> tensor<16x8xbf16>
// CHECK-NEXT: %[[SW32:.*]] = tfm.convert %[[SW]] {tfm.contributes = ["s.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK-NEXT: return %[[DW]], %[[DT]], %[[BW32]], %[[DB32]], %[[SW32]], %[[SW]]
// WRAP-LABEL: func.func @contributions
// WRAP: %[[DW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xf32>, tensor<4x2x16xf32>) -> tensor<16x8xf32>
// WRAP-NOT: tfm.convert %[[DW]]
// WRAP: %[[DT:.*]] = tfm.embedding_grad %{{.*}}, %{{.*}} : (tensor<4x2xi64>, tensor<4x2x8xf32>) -> tensor<32x8xf32>
// WRAP-NOT: tfm.convert %[[DT]]
// The bias pair's weight gradient is rounded and widened, as kept:
// WRAP: %[[BW:.*]] = tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<4x2x8xf32>, tensor<4x2x16xf32>) -> tensor<16x8xf32>
// WRAP-NEXT: %[[BW16:.*]] = tfm.convert %[[BW]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// WRAP: tfm.convert %[[BW16]] {tfm.contributes = ["b.w#0"]} : tensor<16x8xbf16> -> tensor<16x8xf32>
// WRAP: return %[[DW]], %[[DT]]
func.func @contributions(%x: tensor<4x2x8xbf16>, %dy: tensor<4x2x16xbf16>, %ids: tensor<4x2xi64>, %dx: tensor<4x2x8xbf16>, %dyb: tensor<4x2x16xbf16>) -> (tensor<16x8xf32>, tensor<32x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16x8xf32>, tensor<16x8xbf16>) {
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
  return %dw32, %dt32, %bw32, %db32, %sw32, %sw : tensor<16x8xf32>, tensor<32x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16x8xf32>, tensor<16x8xbf16>
}
