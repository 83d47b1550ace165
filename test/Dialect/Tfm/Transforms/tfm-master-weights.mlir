// RUN: sp-opt %s -split-input-file -tfm-master-weights | FileCheck %s
// RUN: sp-opt %s -split-input-file -tfm-master-weights="loss-scaling=off" | FileCheck %s --check-prefix=OFF
// RUN: sp-opt %s -split-input-file -tfm-master-weights="loss-scaling=on" | FileCheck %s --check-prefix=ON
// RUN: not sp-opt %s -split-input-file -tfm-master-weights="loss-scaling=dynamic" 2>&1 | FileCheck %s --check-prefix=OPTION

// tfm-master-weights: every bf16 / f16 parameter becomes an f32 master
// weight, each op using a read of it reads its own conversion to the model's
// precision (one per user op, however many operands), the module records the
// precision and, for f16 (loss-scaling=auto), asks for loss scaling.

// A tied embedding in bf16: one f32 parameter, read once and converted for
// each of its two users (the embedding and the LM head).
// CHECK-LABEL: module attributes {tfm.precision = "bf16"} {
// CHECK-NEXT: tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
// CHECK-NEXT: tfm.param @ln.weight : tensor<8xf32> init ones
// CHECK-NEXT: func.func @forward(%[[IDS:.*]]: tensor<4x1xi64>, %[[LABELS:.*]]: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
// CHECK-NEXT: %[[E:.*]] = tfm.get_param @wte : tensor<16x8xf32>
// CHECK-NEXT: %[[E0:.*]] = tfm.convert %[[E]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK-NEXT: %[[X:.*]] = tfm.embedding %[[IDS]], %[[E0]] : (tensor<4x1xi64>, tensor<16x8xbf16>) -> tensor<4x1x8xbf16>
// CHECK-NEXT: %[[W:.*]] = tfm.get_param @ln.weight : tensor<8xf32>
// CHECK-NEXT: %[[W0:.*]] = tfm.convert %[[W]] : tensor<8xf32> -> tensor<8xbf16>
// CHECK-NEXT: %[[N:.*]] = tfm.rms_norm %[[X]], %[[W0]] eps {{.*}} : (tensor<4x1x8xbf16>, tensor<8xbf16>) -> tensor<4x1x8xbf16>
// CHECK-NEXT: %[[E1:.*]] = tfm.convert %[[E]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK-NEXT: %[[L:.*]] = tfm.linear %[[N]], %[[E1]] : (tensor<4x1x8xbf16>, tensor<16x8xbf16>) -> tensor<4x1x16xbf16>
// An op reading the weight twice reads one conversion.
// CHECK-NEXT: %[[E2:.*]] = tfm.convert %[[E]] : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK-NEXT: tfm.add %[[E2]], %[[E2]] : tensor<16x8xbf16>
// CHECK-NEXT: tfm.cross_entropy %[[L]], %[[LABELS]] ignore_index -100 : (tensor<4x1x16xbf16>, tensor<4x1xi64>) -> tensor<f32>
// CHECK-NOT: tfm.convert
// OFF-LABEL: module attributes {tfm.precision = "bf16"} {
// ON-LABEL: module attributes {tfm.loss_scaling, tfm.precision = "bf16"} {
tfm.param @wte : tensor<16x8xbf16> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xbf16> init ones
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xbf16>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xbf16>) -> tensor<4x1x8xbf16>
  %w = tfm.get_param @ln.weight : tensor<8xbf16>
  %n = tfm.rms_norm %x, %w eps 1.0e-05 : (tensor<4x1x8xbf16>, tensor<8xbf16>) -> tensor<4x1x8xbf16>
  %logits = tfm.linear %n, %e : (tensor<4x1x8xbf16>, tensor<16x8xbf16>) -> tensor<4x1x16xbf16>
  %twice = tfm.add %e, %e : tensor<16x8xbf16>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x1x16xbf16>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// f16, partitioned (the pass runs after sp-partition): the master weight and
// its read keep their layout; loss scaling is on by default, off on request.
// CHECK-LABEL: module attributes {tfm.loss_scaling, tfm.precision = "f16"} {
// CHECK: tfm.param @emb : tensor<32x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
// CHECK: %[[E:.*]] = tfm.get_param @emb : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[E16:.*]] = tfm.convert %[[E]] : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<16x8xf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: tfm.embedding %{{.*}}, %[[E16]] : (tensor<4x1xi64>, tensor<16x8xf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf16, #dist.layout<@mesh, tp = P>>
// OFF-LABEL: module attributes {tfm.precision = "f16"} {
// ON-LABEL: module attributes {tfm.loss_scaling, tfm.precision = "f16"} {
module attributes {tfm.precision = "f16"} {
dist.mesh @mesh ["tp" = 2]
tfm.param @emb : tensor<32x8xf16, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf16, #dist.layout<@mesh, tp = S(0)>>
  %x0 = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf16, #dist.layout<@mesh, tp = P>>
  %x = dist.all_reduce %x0 on @mesh["tp"] sum : tensor<4x1x8xf16, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xf16>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xf16>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
}

// -----

// An f32 model is left as it is (no record, no conversion), unless loss
// scaling is asked for.
// CHECK-LABEL: module {
// CHECK-NEXT: tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
// CHECK-NOT: tfm.convert
// CHECK: return
// OFF-LABEL: module {
// ON-LABEL: module attributes {tfm.loss_scaling} {
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x8xf32>) -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Master weights already (a second run): the parameters are f32, nothing is
// converted again; the recorded precision, f16, still asks for loss scaling.
// CHECK-LABEL: module attributes {tfm.loss_scaling, tfm.precision = "f16"} {
// CHECK-NOT: tfm.convert
// OFF-LABEL: module attributes {tfm.precision = "f16"} {
module attributes {tfm.precision = "f16"} {
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x8xf32>) -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
}

// OPTION: for the --loss-scaling option: Cannot find option named 'dynamic'!
