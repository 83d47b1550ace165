// RUN: sp-opt %s -split-input-file -sp-legalize-precision | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-legalize-precision="storage-rows=false" | FileCheck %s --check-prefix=WRAP
// RUN: sp-opt %s -split-input-file -sp-legalize-precision -o %t.once.mlir
// RUN: sp-opt %t.once.mlir -split-input-file -sp-legalize-precision -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// The norms, the cross-entropy and their backward (ReducesRowsAsStored)
// read and write their bf16 tensors as stored, like the GEMMs: no convert
// around them. A weight
// gradient that is partial (summed over the sequence shards of tp) is
// written in f32 and narrowed after the op for its users; the
// sequence-sharded dx stays bf16. storage-rows=false (WRAP) computes them
// on f32 copies between converts, as before.

// CHECK-LABEL: func.func @norms
// CHECK-NOT: tfm.convert
// CHECK: %[[N:.*]] = tfm.layer_norm %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05 : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[R:.*]] = tfm.rms_norm %[[N]], %{{.*}} eps {{.*}} : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[DX:.*]], %[[DW:.*]], %[[DB:.*]] = tfm.layer_norm_grad %[[R]], %{{.*}}, %{{.*}} eps 1.000000e-05 : ({{.*}}) -> (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>)
// A whole (not partial) gradient stays bf16.
// CHECK-NEXT: %[[RX:.*]], %[[RW:.*]] = tfm.rms_norm_grad %[[DX]], %{{.*}}, %{{.*}} eps {{.*}} : ({{.*}}) -> (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>)
// The partial ones are narrowed for their user.
// CHECK-NEXT: %[[DW16:.*]] = tfm.convert %[[DW]] : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xbf16, #dist.layout<@mesh, tp = P>>
// CHECK-NEXT: %[[DB16:.*]] = tfm.convert %[[DB]] : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xbf16, #dist.layout<@mesh, tp = P>>
// CHECK-NEXT: return %[[RX]], %[[DW16]], %[[DB16]], %[[RW]]

// WRAP-LABEL: func.func @norms
// WRAP: tfm.convert %{{.*}} : tensor<6x1x8xbf16, {{.*}} -> tensor<6x1x8xf32
// WRAP: tfm.layer_norm {{.*}} -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// WRAP: tfm.rms_norm {{.*}} -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// WRAP: tfm.layer_norm_grad {{.*}} -> (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>)
// WRAP: tfm.rms_norm_grad {{.*}} -> (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>)
dist.mesh @mesh ["tp" = 2]
func.func @norms(%x: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<8xbf16>, %b: tensor<8xbf16>) -> (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>, tensor<8xbf16>) {
  %n = tfm.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %r = tfm.rms_norm %n, %w eps 1.0e-06 : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %dx, %dw, %db = tfm.layer_norm_grad %r, %x, %w eps 1.0e-05 : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>)
  %rx, %rw = tfm.rms_norm_grad %dx, %x, %w eps 1.0e-06 : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>)
  return %rx, %dw, %db, %rw : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>, tensor<8xbf16>
}

// -----

// The loss reads its bf16 logits as stored; its gradient writes bf16.
// CHECK-LABEL: func.func @loss
// CHECK-NOT: tfm.convert
// CHECK: %[[L:.*]] = tfm.cross_entropy %{{.*}}, %{{.*}} ignore_index -100 : (tensor<6x2x16xbf16>, tensor<6x2xi64>) -> tensor<f32>
// CHECK-NEXT: %[[D:.*]] = tfm.cross_entropy_grad %{{.*}}, %{{.*}}, %[[L]] ignore_index -100 : (tensor<6x2x16xbf16>, tensor<6x2xi64>, tensor<f32>) -> tensor<6x2x16xbf16>
// CHECK-NEXT: return %[[L]], %[[D]]
// WRAP-LABEL: func.func @loss
// WRAP: %[[W:.*]] = tfm.convert %{{.*}} : tensor<6x2x16xbf16> -> tensor<6x2x16xf32>
// WRAP: tfm.cross_entropy %[[W]]
// WRAP: tfm.cross_entropy_grad {{.*}} -> tensor<6x2x16xf32>
// WRAP-NEXT: tfm.convert {{.*}} : tensor<6x2x16xf32> -> tensor<6x2x16xbf16>
func.func @loss(%logits: tensor<6x2x16xbf16>, %labels: tensor<6x2xi64>) -> (tensor<f32>, tensor<6x2x16xbf16>) {
  %l = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<6x2x16xbf16>, tensor<6x2xi64>) -> tensor<f32>
  %d = tfm.cross_entropy_grad %logits, %labels, %l ignore_index -100 : (tensor<6x2x16xbf16>, tensor<6x2xi64>, tensor<f32>) -> tensor<6x2x16xbf16>
  return %l, %d : tensor<f32>, tensor<6x2x16xbf16>
}

// -----

// The bias gradient (ReducesRowsAsStored) reads its bf16 dy as stored: a
// whole sum is rounded into bf16, a partial one (SP's sequence-sharded dy)
// is written in f32 and narrowed for its user.
// CHECK-LABEL: func.func @bias
// CHECK-NOT: tfm.convert
// CHECK: tfm.bias_grad %{{.*}} : tensor<6x1x8xbf16> -> tensor<8xbf16>
// CHECK-NEXT: %[[P:.*]] = tfm.bias_grad %{{.*}} : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<8xf32, #dist.layout<@mesh, tp = P>>
// CHECK-NEXT: tfm.convert %[[P]] : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xbf16, #dist.layout<@mesh, tp = P>>
// WRAP-LABEL: func.func @bias
// WRAP: tfm.convert %{{.*}} : tensor<6x1x8xbf16> -> tensor<6x1x8xf32>
// WRAP: tfm.bias_grad %{{.*}} : tensor<6x1x8xf32> -> tensor<8xf32>
dist.mesh @mesh ["tp" = 2]
func.func @bias(%dy: tensor<6x1x8xbf16>, %dys: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<8xbf16>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>) {
  %a = tfm.bias_grad %dy : tensor<6x1x8xbf16> -> tensor<8xbf16>
  %b = tfm.bias_grad %dys : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<8xbf16, #dist.layout<@mesh, tp = P>>
  return %a, %b : tensor<8xbf16>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>
}

// -----

// The embedding moves rows (MovesBytes): its bf16 table is read as stored,
// with or without storage-rows. Its gradient (ReducesRowsAsStored) reads
// its bf16 dy as stored: a whole gradient is rounded into bf16, a partial
// one (SP's sequence-sharded dy) is written in f32 and narrowed for its
// user; storage-rows=false wraps it as before.
// CHECK-LABEL: func.func @embedding
// CHECK-NOT: tfm.convert
// CHECK: tfm.embedding %{{.*}}, %{{.*}} : (tensor<6x1xi64>, tensor<16x8xbf16>) -> tensor<6x1x8xbf16>
// CHECK-NEXT: tfm.embedding_grad %{{.*}}, %{{.*}} : (tensor<6x1xi64>, tensor<6x1x8xbf16>) -> tensor<16x8xbf16>
// CHECK-NEXT: %[[P:.*]] = tfm.embedding_grad %{{.*}}, %{{.*}} : (tensor<6x1xi64, #dist.layout<@mesh, tp = S(0)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<16x8xf32, #dist.layout<@mesh, tp = P>>
// CHECK-NEXT: tfm.convert %[[P]] : tensor<16x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<16x8xbf16, #dist.layout<@mesh, tp = P>>
// WRAP-LABEL: func.func @embedding
// WRAP-NEXT: tfm.embedding %{{.*}}, %{{.*}} : (tensor<6x1xi64>, tensor<16x8xbf16>) -> tensor<6x1x8xbf16>
// WRAP-NEXT: tfm.convert %{{.*}} : tensor<6x1x8xbf16> -> tensor<6x1x8xf32>
// WRAP-NEXT: tfm.embedding_grad %{{.*}}, %{{.*}} : (tensor<6x1xi64>, tensor<6x1x8xf32>) -> tensor<16x8xf32>
dist.mesh @mesh ["tp" = 2]
func.func @embedding(%ids: tensor<6x1xi64>, %table: tensor<16x8xbf16>, %dy: tensor<6x1x8xbf16>, %idss: tensor<6x1xi64, #dist.layout<@mesh, tp = S(0)>>, %dys: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<6x1x8xbf16>, tensor<16x8xbf16>, tensor<16x8xbf16, #dist.layout<@mesh, tp = P>>) {
  %x = tfm.embedding %ids, %table : (tensor<6x1xi64>, tensor<16x8xbf16>) -> tensor<6x1x8xbf16>
  %a = tfm.embedding_grad %ids, %dy : (tensor<6x1xi64>, tensor<6x1x8xbf16>) -> tensor<16x8xbf16>
  %b = tfm.embedding_grad %idss, %dys : (tensor<6x1xi64, #dist.layout<@mesh, tp = S(0)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<16x8xbf16, #dist.layout<@mesh, tp = P>>
  return %x, %a, %b : tensor<6x1x8xbf16>, tensor<16x8xbf16>, tensor<16x8xbf16, #dist.layout<@mesh, tp = P>>
}
