// RUN: sp-opt %s -tfm-autodiff -sp-recompute=policy=none | FileCheck %s --check-prefix=NONE
// RUN: sp-opt %s -tfm-autodiff -sp-recompute=policy=selective | FileCheck %s --check-prefix=SEL
// RUN: sp-opt %s -tfm-autodiff -sp-recompute=policy=full | FileCheck %s --check-prefix=FULL
// The recomputed steps are still well-formed SPMD programs.
// RUN: sp-opt %s -tfm-autodiff -sp-recompute=policy=full -sp-sync-grads -sp-verify > /dev/null
// RUN: sp-opt %s -tfm-autodiff -sp-recompute=policy=selective -sp-sync-grads -sp-verify > /dev/null

// Two sequence-parallel layers on 2 ranks, located as sp-import locates them:
// layer 0 a GLU MLP (Llama's silu(gate) * up), layer 1 a gelu MLP with a
// dropout after the activation; the loss outside the layers.
dist.mesh @mesh ["tp" = 2]
tfm.param @emb : tensor<32x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @l0.norm : tensor<8xf32> init ones
tfm.param @l0.gate : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @l0.up : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @l0.down : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @l1.norm : tensor<8xf32> init ones
tfm.param @l1.up : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @l1.down : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.embed_tokens")
  %x0 = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> loc("model.embed_tokens")
  %x = dist.reduce_scatter %x0 on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.embed_tokens")
  // Layer 0: a GLU MLP (Llama's).
  %w0 = tfm.get_param @l0.norm : tensor<8xf32> loc("model.layers.0.norm")
  %n0 = tfm.rms_norm %x, %w0 eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.0.norm")
  %g0 = dist.all_gather %n0 on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32> loc("model.layers.0.norm")
  %wg0 = tfm.get_param @l0.gate : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.0.mlp")
  %gate0 = tfm.linear %g0, %wg0 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.0.mlp")
  %wu0 = tfm.get_param @l0.up : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.0.mlp")
  %up0 = tfm.linear %g0, %wu0 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.0.mlp")
  %act0 = tfm.silu %gate0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.0.mlp")
  %glu0 = tfm.mul %act0, %up0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.0.mlp")
  %wd0 = tfm.get_param @l0.down : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> loc("model.layers.0.mlp")
  %p0 = tfm.linear %glu0, %wd0 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> loc("model.layers.0.mlp")
  %r0 = dist.reduce_scatter %p0 on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.0.mlp")
  %y0 = tfm.add %x, %r0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.0.mlp")
  // Layer 1: a gelu MLP with dropout (GPT-2's).
  %w1 = tfm.get_param @l1.norm : tensor<8xf32> loc("model.layers.1.norm")
  %n1 = tfm.rms_norm %y0, %w1 eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.1.norm")
  %g1 = dist.all_gather %n1 on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32> loc("model.layers.1.norm")
  %wu1 = tfm.get_param @l1.up : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.1.mlp")
  %up1 = tfm.linear %g1, %wu1 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.1.mlp")
  %act1 = tfm.gelu %up1 approximate tanh : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.1.mlp")
  %drop1 = tfm.dropout %act1 rate 1.0e-01 stream 7 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>> loc("model.layers.1.mlp")
  %wd1 = tfm.get_param @l1.down : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> loc("model.layers.1.mlp")
  %p1 = tfm.linear %drop1, %wd1 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> loc("model.layers.1.mlp")
  %r1 = dist.reduce_scatter %p1 on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.1.mlp")
  %y1 = tfm.add %y0, %r1 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> loc("model.layers.1.mlp")
  // Outside the layers: the loss.
  %l = dist.all_gather %y1 on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32> loc("lm_head")
  %loss = tfm.cross_entropy %l, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32> loc("lm_head")
  return %loss : tensor<f32>
}

// none: the train step is tfm-autodiff's; only the module is marked.
// NONE: module attributes {tfm.recompute = #tfm.recompute<none>}
// NONE-NOT: tfm.recomputed

// selective: each norm output, activation output and the GLU product is
// copied right before its first backward reader, from the kept inputs.
// SEL: module attributes {tfm.recompute = #tfm.recompute<selective>}
// SEL: %[[X:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// SEL: %[[W0:.*]] = tfm.get_param @l0.norm
// SEL: %[[N0:.*]] = tfm.rms_norm %[[X]], %[[W0]]
// SEL: %[[GATE0:.*]] = tfm.linear
// SEL: %[[UP0:.*]] = tfm.linear
// SEL: %[[ACT0:.*]] = tfm.silu %[[GATE0]]
// SEL: %[[GLU0:.*]] = tfm.mul %[[ACT0]], %[[UP0]]
// SEL: %[[Y0:.*]] = tfm.add %[[X]],
// SEL: %[[W1:.*]] = tfm.get_param @l1.norm
// SEL: %[[N1:.*]] = tfm.rms_norm %[[Y0]], %[[W1]]
// SEL: %[[UP1:.*]] = tfm.linear
// SEL: %[[ACT1:.*]] = tfm.gelu %[[UP1]]
// SEL: %[[DROP1:.*]] = tfm.dropout %[[ACT1]]
// SEL: tfm.backward_begins
// Layer 1: the backward reads the dropout's output (kept: not a norm or an
// activation) and the gelu's input; the norm is recomputed for the weight
// gradient's all-gather.
// SEL: tfm.linear_grad_weight %[[DROP1]],
// SEL: tfm.gelu_grad %{{.*}}, %[[UP1]]
// SEL: %[[N1R:.*]] = tfm.rms_norm %[[Y0]], %[[W1]] {{.*}}{tfm.recomputed}
// SEL-NEXT: dist.all_gather %[[N1R]] on @mesh["tp"] dim 0 :
// SEL-NOT: {tfm.recomputed}
// SEL: tfm.rms_norm_grad %{{.*}}, %[[Y0]], %[[W1]]
// Layer 0: silu and the product, once, before the down projection's weight
// gradient; the product's backward reads the same silu copy.
// SEL: tfm.linear_grad_input
// SEL-NEXT: %[[ACT0R:.*]] = tfm.silu %[[GATE0]] {tfm.recomputed}
// SEL-NEXT: %[[GLU0R:.*]] = tfm.mul %[[ACT0R]], %[[UP0]] {tfm.recomputed}
// SEL-NEXT: tfm.linear_grad_weight %[[GLU0R]],
// SEL-NEXT: tfm.mul %{{.*}}, %[[UP0]]
// SEL-NEXT: tfm.mul %{{.*}}, %[[ACT0R]]
// SEL-NEXT: tfm.silu_grad %{{.*}}, %[[GATE0]]
// SEL: %[[N0R:.*]] = tfm.rms_norm %[[X]], %[[W0]] {{.*}}{tfm.recomputed}
// SEL-NEXT: dist.all_gather %[[N0R]] on @mesh["tp"] dim 0 :
// SEL-NOT: {tfm.recomputed}
// SEL: return

// full: each layer keeps its input only (x for layer 0, y0 for layer 1). The
// layer's forward is copied, in order, before the first backward op that
// needs it, re-issuing its all-gather; the copied dropout draws the same
// stream. The layer's last GEMM, reduce-scatter and residual add, which the
// backward does not need, are not copied.
// FULL: module attributes {tfm.recompute = #tfm.recompute<full>}
// FULL: %[[X:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// FULL: %[[W0:.*]] = tfm.get_param @l0.norm
// FULL: %[[WG0:.*]] = tfm.get_param @l0.gate
// FULL: %[[WU0:.*]] = tfm.get_param @l0.up
// FULL: %[[Y0:.*]] = tfm.add %[[X]],
// FULL: %[[W1:.*]] = tfm.get_param @l1.norm
// FULL: %[[WU1:.*]] = tfm.get_param @l1.up
// FULL: tfm.backward_begins
// FULL: tfm.linear_grad_input
// FULL-NEXT: %[[N1:.*]] = tfm.rms_norm %[[Y0]], %[[W1]] {{.*}}{tfm.recomputed}
// FULL-NEXT: %[[G1:.*]] = dist.all_gather %[[N1]] on @mesh["tp"] dim 0 {tfm.recomputed}
// FULL-NEXT: %[[UP1:.*]] = tfm.linear %[[G1]], %[[WU1]] {tfm.recomputed}
// FULL-NEXT: %[[ACT1:.*]] = tfm.gelu %[[UP1]] approximate tanh {tfm.recomputed}
// FULL-NEXT: %[[DROP1:.*]] = tfm.dropout %[[ACT1]] rate 1.000000e-01 stream 7 {tfm.recomputed}
// FULL-NEXT: tfm.linear_grad_weight %[[DROP1]],
// FULL-NEXT: tfm.dropout %{{.*}} rate 1.000000e-01 stream 7 :
// FULL-NEXT: tfm.gelu_grad %{{.*}}, %[[UP1]]
// FULL-NEXT: tfm.linear_grad_input
// FULL-NEXT: dist.all_gather %[[N1]] on @mesh["tp"] dim 0 :
// FULL-NOT: {tfm.recomputed}
// FULL: tfm.rms_norm_grad %{{.*}}, %[[Y0]], %[[W1]]
// FULL: tfm.linear_grad_input
// FULL-NEXT: %[[N0:.*]] = tfm.rms_norm %[[X]], %[[W0]] {{.*}}{tfm.recomputed}
// FULL-NEXT: %[[G0:.*]] = dist.all_gather %[[N0]] on @mesh["tp"] dim 0 {tfm.recomputed}
// FULL-NEXT: %[[GATE0:.*]] = tfm.linear %[[G0]], %[[WG0]] {tfm.recomputed}
// FULL-NEXT: %[[UP0:.*]] = tfm.linear %[[G0]], %[[WU0]] {tfm.recomputed}
// FULL-NEXT: %[[ACT0:.*]] = tfm.silu %[[GATE0]] {tfm.recomputed}
// FULL-NEXT: %[[GLU0:.*]] = tfm.mul %[[ACT0]], %[[UP0]] {tfm.recomputed}
// FULL-NEXT: tfm.linear_grad_weight %[[GLU0]],
// FULL-NEXT: tfm.mul %{{.*}}, %[[UP0]]
// FULL-NEXT: tfm.mul %{{.*}}, %[[ACT0]]
// FULL-NEXT: tfm.silu_grad %{{.*}}, %[[GATE0]]
// FULL-NOT: {tfm.recomputed}
// FULL: tfm.rms_norm_grad %{{.*}}, %[[X]], %[[W0]]
// FULL-NOT: {tfm.recomputed}
// FULL: return
