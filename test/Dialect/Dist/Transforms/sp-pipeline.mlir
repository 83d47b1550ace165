// RUN: sp-opt %s -sp-pipeline | FileCheck %s

// Three stages of one layer each. The embedding %x, read again by the last
// layer, is relayed by stage 1; the values crossing a boundary go in the
// order the forward defines them (%x before %y0, %x before %y1); the fill
// (a shared value) is cloned into each stage that reads it; the tied table
// @wte is read by the embedding on stage 0 and by the head on stage 2, whose
// input comes from stage 2. @head.b (no layer number) is read after the
// layers: stage 2.

dist.mesh @mesh ["pp" = 3, "tp" = 1] roles [pipeline, tensor]
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @layers.0.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.1.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @layers.2.w : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @head.b : tensor<16xf32> init zeros
func.func @fwd(%ids: tensor<4x2xi64> {tfm.name = "input_ids"}, %labels: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %c = tfm.fill 5.000000e-01 : tensor<4x2x8xf32>
  %w0 = tfm.get_param @layers.0.w : tensor<8x8xf32>
  %y0 = tfm.linear %x, %w0 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %w1 = tfm.get_param @layers.1.w : tensor<8x8xf32>
  %l1 = tfm.linear %y0, %w1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %y1 = tfm.add %l1, %c : tensor<4x2x8xf32>
  %w2 = tfm.get_param @layers.2.w : tensor<8x8xf32>
  %l2 = tfm.linear %y1, %w2 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %y2 = tfm.add %l2, %c : tensor<4x2x8xf32>
  %s = tfm.add %y2, %x : tensor<4x2x8xf32>
  %b = tfm.get_param @head.b : tensor<16xf32>
  %logits = tfm.linear %s, %e, %b : (tensor<4x2x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x2x16xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @fwd_stage0(%arg0: tensor<4x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<4x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 3 : i64} {
// CHECK-NEXT:    %[[E:.*]] = tfm.get_param @wte
// CHECK-NEXT:    %[[X:.*]] = tfm.embedding %arg0, %[[E]]
// CHECK-NEXT:    %[[W0:.*]] = tfm.get_param @layers.0.w
// CHECK-NEXT:    %[[Y0:.*]] = tfm.linear %[[X]], %[[W0]]
// CHECK-NEXT:    dist.send %[[X]] on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
// CHECK-NEXT:    dist.send %[[Y0]] on @mesh["pp"] offset 1 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[Z:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// CHECK-NEXT:    return %[[Z]] : tensor<f32>

// CHECK-LABEL: func.func @fwd_stage1(
// CHECK-SAME:      attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 3 : i64}
// CHECK-NEXT:    %[[X1:.*]] = dist.recv on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[Y01:.*]] = dist.recv on @mesh["pp"] offset -1 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[W1:.*]] = tfm.get_param @layers.1.w
// CHECK-NEXT:    %[[L1:.*]] = tfm.linear %[[Y01]], %[[W1]]
// CHECK-NEXT:    %[[C1:.*]] = tfm.fill 5.000000e-01 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[Y1:.*]] = tfm.add %[[L1]], %[[C1]]
// CHECK-NEXT:    dist.send %[[X1]] on @mesh["pp"] offset 1
// CHECK-NEXT:    dist.send %[[Y1]] on @mesh["pp"] offset 1
// CHECK-NEXT:    %[[Z1:.*]] = tfm.fill 0.000000e+00 : tensor<f32>
// CHECK-NEXT:    return %[[Z1]] : tensor<f32>

// CHECK-LABEL: func.func @fwd_stage2(
// CHECK-SAME:      attributes {tfm.forward, tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 3 : i64}
// CHECK-NEXT:    %[[X2:.*]] = dist.recv on @mesh["pp"] offset -1
// CHECK-NEXT:    %[[Y12:.*]] = dist.recv on @mesh["pp"] offset -1
// CHECK-NEXT:    %[[W2:.*]] = tfm.get_param @layers.2.w
// CHECK-NEXT:    %[[L2:.*]] = tfm.linear %[[Y12]], %[[W2]]
// CHECK-NEXT:    %[[C2:.*]] = tfm.fill 5.000000e-01 : tensor<4x2x8xf32>
// CHECK-NEXT:    %[[Y2:.*]] = tfm.add %[[L2]], %[[C2]]
// CHECK-NEXT:    %[[S:.*]] = tfm.add %[[Y2]], %[[X2]]
// CHECK-NEXT:    %[[E2:.*]] = tfm.get_param @wte
// CHECK-NEXT:    %[[B:.*]] = tfm.get_param @head.b
// CHECK-NEXT:    %[[LOGITS:.*]] = tfm.linear %[[S]], %[[E2]], %[[B]]
// CHECK-NEXT:    %[[LOSS:.*]] = tfm.cross_entropy %[[LOGITS]], %arg1
// CHECK-NEXT:    return %[[LOSS]] : tensor<f32>
// CHECK-NOT:   func.func
