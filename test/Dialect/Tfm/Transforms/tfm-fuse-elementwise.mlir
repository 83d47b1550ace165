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

// -----

// SwiGLU: the backward's products dy * up and dy * silu(gate) (either
// operand order) and the SiLU's gradient become one tfm.swiglu_grad, at the
// earlier of its two results, with the SiLU's gradient's discardable
// attributes; the forward's SiLU is then read by its product alone and
// fuses with it into one tfm.swiglu, with the SiLU's attributes.
// CHECK-LABEL: func.func @swiglu
// CHECK-SAME: (%[[G:.*]]: tensor<8x2x88xbf16>, %[[U:.*]]: tensor<8x2x88xbf16>)
// CHECK-NEXT: %[[H:.*]] = tfm.swiglu %[[G]], %[[U]] {tfm.in_micro_batch = 0 : i64} : tensor<8x2x88xbf16>
// CHECK-NEXT: %[[DY:.*]] = tfm.add %[[H]], %[[H]]
// CHECK-NEXT: %[[DG:.*]], %[[DU:.*]] = tfm.swiglu_grad %[[DY]], %[[G]], %[[U]] {tfm.in_micro_batch = 1 : i64} : tensor<8x2x88xbf16>
// CHECK-NEXT: return %[[H]], %[[DG]], %[[DU]]
func.func @swiglu(%g: tensor<8x2x88xbf16>, %u: tensor<8x2x88xbf16>)
    -> (tensor<8x2x88xbf16>, tensor<8x2x88xbf16>, tensor<8x2x88xbf16>) {
  %s = tfm.silu %g {tfm.in_micro_batch = 0 : i64} : tensor<8x2x88xbf16>
  %h = tfm.mul %u, %s {tfm.in_micro_batch = 0 : i64} : tensor<8x2x88xbf16>
  // A stand-in for the backward's chain from %h to its gradient.
  %dy = tfm.add %h, %h : tensor<8x2x88xbf16>
  %m = tfm.mul %u, %dy {tfm.in_micro_batch = 1 : i64} : tensor<8x2x88xbf16>
  %du = tfm.mul %s, %dy {tfm.in_micro_batch = 1 : i64} : tensor<8x2x88xbf16>
  %dg = tfm.silu_grad %m, %g {tfm.in_micro_batch = 1 : i64} : tensor<8x2x88xbf16>
  return %h, %dg, %du : tensor<8x2x88xbf16>, tensor<8x2x88xbf16>, tensor<8x2x88xbf16>
}

// -----

// Selective recompute: the backward reads a recomputed SiLU and product
// (the down projection's weight gradient reads the product). The gradient
// fuses with the recomputed SiLU's reader, then each SiLU with its product.
// CHECK-LABEL: func.func @recomputed
// CHECK-SAME: (%[[G:.*]]: tensor<8x2x88xf32>, %[[U:.*]]: tensor<8x2x88xf32>)
// CHECK-NEXT: %[[H:.*]] = tfm.swiglu %[[G]], %[[U]] : tensor<8x2x88xf32>
// CHECK-NEXT: %[[DY:.*]] = tfm.add %[[H]], %[[H]]
// CHECK-NEXT: %[[H2:.*]] = tfm.swiglu %[[G]], %[[U]] {tfm.recomputed} : tensor<8x2x88xf32>
// CHECK-NEXT: %[[DG:.*]], %[[DU:.*]] = tfm.swiglu_grad %[[DY]], %[[G]], %[[U]] : tensor<8x2x88xf32>
// CHECK-NEXT: return %[[H]], %[[H2]], %[[DG]], %[[DU]]
func.func @recomputed(%g: tensor<8x2x88xf32>, %u: tensor<8x2x88xf32>)
    -> (tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>,
        tensor<8x2x88xf32>) {
  %s = tfm.silu %g : tensor<8x2x88xf32>
  %h = tfm.mul %s, %u : tensor<8x2x88xf32>
  %dy = tfm.add %h, %h : tensor<8x2x88xf32>
  %s2 = tfm.silu %g {tfm.recomputed} : tensor<8x2x88xf32>
  %h2 = tfm.mul %s2, %u {tfm.recomputed} : tensor<8x2x88xf32>
  %m = tfm.mul %dy, %u : tensor<8x2x88xf32>
  %dg = tfm.silu_grad %m, %g : tensor<8x2x88xf32>
  %du = tfm.mul %dy, %s2 : tensor<8x2x88xf32>
  return %h, %h2, %dg, %du : tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>
}

// -----

// Left alone (each dy a stand-in for the backward's chain, computed from
// the forward's product): a product dy * up read by more than the SiLU's
// gradient (the backward stays, so its SiLU stays too); products of
// different dys; a SiLU's gradient in another context than its products;
// an up defined after the gradient of up (the fused op would read it before
// it is defined); a SiLU read by more than its product; a SiLU squared.
// The forward's own product silu(gate) * up has the backward's shape with
// dy and up swapped; the fused op would read the gradient before it is
// computed, so it never stands in for dy * silu(gate).
// CHECK-LABEL: func.func @keeps
// CHECK-NOT: tfm.swiglu
// CHECK-COUNT-4: tfm.silu_grad
// CHECK-NOT: tfm.swiglu
// CHECK: return
func.func @keeps(%g: tensor<8x2x88xf32>, %u: tensor<8x2x88xf32>)
    -> (tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>,
        tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>,
        tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>,
        tensor<8x2x88xf32>, tensor<8x2x88xf32>) {
  %s0 = tfm.silu %g : tensor<8x2x88xf32>
  %h0 = tfm.mul %s0, %u : tensor<8x2x88xf32>
  %dy0 = tfm.add %h0, %h0 : tensor<8x2x88xf32>
  %m0 = tfm.mul %dy0, %u : tensor<8x2x88xf32>
  %dg0 = tfm.silu_grad %m0, %g : tensor<8x2x88xf32>
  %du0 = tfm.mul %dy0, %s0 : tensor<8x2x88xf32>
  %s1 = tfm.silu %u : tensor<8x2x88xf32>
  %h1 = tfm.mul %s1, %g : tensor<8x2x88xf32>
  %dy1 = tfm.add %h1, %h1 : tensor<8x2x88xf32>
  %dz1 = tfm.add %h1, %dy1 : tensor<8x2x88xf32>
  %m1 = tfm.mul %dy1, %g : tensor<8x2x88xf32>
  %dg1 = tfm.silu_grad %m1, %u : tensor<8x2x88xf32>
  %du1 = tfm.mul %dz1, %s1 : tensor<8x2x88xf32>
  %s2 = tfm.silu %dz1 : tensor<8x2x88xf32>
  %h2 = tfm.mul %s2, %g : tensor<8x2x88xf32>
  %dy2 = tfm.add %h2, %h2 : tensor<8x2x88xf32>
  %m2 = tfm.mul %dy2, %g : tensor<8x2x88xf32>
  %dg2 = tfm.silu_grad %m2, %dz1 {tfm.in_micro_batch = 1 : i64} : tensor<8x2x88xf32>
  %du2 = tfm.mul %dy2, %s2 : tensor<8x2x88xf32>
  %s3 = tfm.silu %dy2 : tensor<8x2x88xf32>
  %h3 = tfm.mul %s3, %g : tensor<8x2x88xf32>
  %dy3 = tfm.add %h3, %h3 : tensor<8x2x88xf32>
  %du3 = tfm.mul %dy3, %s3 : tensor<8x2x88xf32>
  %late = tfm.add %g, %u : tensor<8x2x88xf32>
  %m3 = tfm.mul %dy3, %late : tensor<8x2x88xf32>
  %dg3 = tfm.silu_grad %m3, %dy2 : tensor<8x2x88xf32>
  %s4 = tfm.silu %g : tensor<8x2x88xf32>
  %h4 = tfm.mul %s4, %u : tensor<8x2x88xf32>
  %s5 = tfm.silu %u : tensor<8x2x88xf32>
  %h5 = tfm.mul %s5, %s5 : tensor<8x2x88xf32>
  return %m0, %dg0, %du0, %dg1, %du1, %dg2, %du2, %du3, %dg3, %s4, %h5 : tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>, tensor<8x2x88xf32>
}

// -----

// A norm's backward absorbs the add of its input gradient into the residual
// stream's gradient (either operand order), defined before it: its dx is
// the sum. Tagged weight gradients (tfm.contributes) do not keep it apart.
// CHECK-LABEL: func.func @norm_grad_residual
// CHECK-SAME: (%[[DY:.*]]: tensor<8x2x32xbf16>, %[[X:.*]]: tensor<8x2x32xbf16>, %[[W:.*]]: tensor<32xbf16>, %[[R:.*]]: tensor<8x2x32xbf16>)
// CHECK-NEXT: %[[S:.*]], %{{.*}}, %{{.*}} = tfm.layer_norm_grad %[[DY]], %[[X]], %[[W]] residual %[[R]] eps 1.000000e-05 {tfm.contributes = [unit, "w#0", "b#0"], tfm.in_micro_batch = 1 : i64}
// CHECK-NEXT: %[[T:.*]], %{{.*}} = tfm.rms_norm_grad %[[DY]], %[[X]], %[[W]] residual %[[S]] eps 9.9999999999999995E-7
// CHECK-NEXT: return %[[T]]
func.func @norm_grad_residual(%dy: tensor<8x2x32xbf16>, %x: tensor<8x2x32xbf16>,
                              %w: tensor<32xbf16>, %r: tensor<8x2x32xbf16>)
    -> (tensor<8x2x32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>) {
  %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 {tfm.contributes = [unit, "w#0", "b#0"], tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<8x2x32xbf16>, tensor<32xbf16>) -> (tensor<8x2x32xbf16>, tensor<32xbf16>, tensor<32xbf16>)
  %s = tfm.add %r, %dx {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xbf16>
  %dx2, %dw2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x32xbf16>, tensor<8x2x32xbf16>, tensor<32xbf16>) -> (tensor<8x2x32xbf16>, tensor<32xbf16>)
  %t = tfm.add %dx2, %s : tensor<8x2x32xbf16>
  return %t, %dw, %db, %dw2 : tensor<8x2x32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>
}

// -----

// Left alone: an input gradient the program still reads, one added to
// itself, one added to a value defined after the norm's backward, and a
// pair of different micro-batches.
// CHECK-LABEL: func.func @norm_grad_keeps
// CHECK-NOT: residual
// CHECK-COUNT-4: tfm.add
// CHECK-NOT: residual
func.func @norm_grad_keeps(%dy: tensor<8x2x32xf32>, %x: tensor<8x2x32xf32>,
                           %w: tensor<32xf32>, %r: tensor<8x2x32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>,
        tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %dx0, %dw0 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<32xf32>) -> (tensor<8x2x32xf32>, tensor<32xf32>)
  %a0 = tfm.add %r, %dx0 : tensor<8x2x32xf32>
  %dx1, %dw1 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<32xf32>) -> (tensor<8x2x32xf32>, tensor<32xf32>)
  %a1 = tfm.add %dx1, %dx1 : tensor<8x2x32xf32>
  %dx2, %dw2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<32xf32>) -> (tensor<8x2x32xf32>, tensor<32xf32>)
  %late = tfm.mul %r, %r : tensor<8x2x32xf32>
  %a2 = tfm.add %late, %dx2 : tensor<8x2x32xf32>
  %dx3, %dw3 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 {tfm.in_micro_batch = 0 : i64} : (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<32xf32>) -> (tensor<8x2x32xf32>, tensor<32xf32>)
  %a3 = tfm.add %r, %dx3 {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xf32>
  return %a0, %dx0, %a1, %a2, %a3 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
}

// -----

// A residual add and the norm of its sum become one op at the add (the
// norm's weight and bias are defined before it); the sum replaces the
// add's result wherever it is read, the norm's result the norm's. The
// fused op keeps the add's context.
// CHECK-LABEL: func.func @add_norm
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x32xbf16>, %[[R:.*]]: tensor<8x2x32xbf16>, %[[W:.*]]: tensor<32xbf16>, %[[B:.*]]: tensor<32xbf16>)
// CHECK-NEXT: %[[H:.*]], %[[Y:.*]] = tfm.add_layer_norm %[[X]], %[[R]], %[[W]], %[[B]] eps 1.000000e-05 {tfm.in_micro_batch = 1 : i64}
// CHECK-NEXT: %[[H2:.*]], %[[Z:.*]] = tfm.add_rms_norm %[[H]], %[[Y]], %[[W]] eps 9.9999999999999995E-7
// CHECK-NEXT: return %[[H2]], %[[Z]]
func.func @add_norm(%x: tensor<8x2x32xbf16>, %r: tensor<8x2x32xbf16>,
                    %w: tensor<32xbf16>, %b: tensor<32xbf16>)
    -> (tensor<8x2x32xbf16>, tensor<8x2x32xbf16>) {
  %h = tfm.add %x, %r {tfm.in_micro_batch = 1 : i64} : tensor<8x2x32xbf16>
  %y = tfm.layer_norm %h, %w, %b eps 1.0e-05 {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<8x2x32xbf16>
  %h2 = tfm.add %h, %y : tensor<8x2x32xbf16>
  %z = tfm.rms_norm %h2, %w eps 1.0e-06 : (tensor<8x2x32xbf16>, tensor<32xbf16>) -> tensor<8x2x32xbf16>
  return %h2, %z : tensor<8x2x32xbf16>, tensor<8x2x32xbf16>
}

// -----

// A weight defined after the add: the fused op goes at the norm, where
// nothing read the sum before it.
// CHECK-LABEL: func.func @add_norm_at_norm
// CHECK-NEXT: %[[W2:.*]] = tfm.mul
// CHECK-NEXT: %[[H:.*]], %[[Y:.*]] = tfm.add_rms_norm %{{.*}}, %{{.*}}, %[[W2]]
// CHECK-NEXT: %[[U:.*]] = tfm.add %[[H]], %[[H]]
// CHECK-NEXT: return %[[U]], %[[Y]]
func.func @add_norm_at_norm(%x: tensor<8x2x32xf32>, %r: tensor<8x2x32xf32>,
                            %w: tensor<32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %h = tfm.add %x, %r : tensor<8x2x32xf32>
  %w2 = tfm.mul %w, %w : tensor<32xf32>
  %y = tfm.rms_norm %h, %w2 eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  %u = tfm.add %h, %h : tensor<8x2x32xf32>
  return %u, %y : tensor<8x2x32xf32>, tensor<8x2x32xf32>
}

// -----

// Left alone: a sum read before a norm whose weight is defined after the
// add, a sum tagged as a gradient contribution, and an add and a norm of
// different micro-batches. An add read by two norms fuses with the first.
// CHECK-LABEL: func.func @add_norm_keeps
// CHECK-COUNT-3: tfm.rms_norm
// CHECK: tfm.add_rms_norm
// CHECK-NEXT: tfm.rms_norm
// CHECK-NOT: tfm.add_rms_norm
func.func @add_norm_keeps(%x: tensor<8x2x32xf32>, %r: tensor<8x2x32xf32>,
                          %w: tensor<32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>,
        tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %h0 = tfm.add %x, %r : tensor<8x2x32xf32>
  %early = tfm.mul %h0, %h0 : tensor<8x2x32xf32>
  %w2 = tfm.mul %w, %w : tensor<32xf32>
  %y0 = tfm.rms_norm %h0, %w2 eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  %h1 = tfm.add %x, %r {tfm.contributes = ["x#0"]} : tensor<8x2x32xf32>
  %y1 = tfm.rms_norm %h1, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  %h2 = tfm.add %x, %r {tfm.in_micro_batch = 0 : i64} : tensor<8x2x32xf32>
  %y2 = tfm.rms_norm %h2, %w eps 1.0e-06 {tfm.in_micro_batch = 1 : i64} : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  %h3 = tfm.add %y0, %r : tensor<8x2x32xf32>
  %y3 = tfm.rms_norm %h3, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  %y4 = tfm.rms_norm %h3, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  return %early, %y1, %y2, %y3, %y4, %h3 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
}

// -----

// GPT-2's residual stream with dropout: the dropout and its add become one
// tfm.dropout_add, which then fuses with the norm of its sum (the dropout's
// rate and stream carried over).
// CHECK-LABEL: func.func @dropout_add_norm
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x32xf32>, %[[R:.*]]: tensor<8x2x32xf32>, %[[W:.*]]: tensor<32xf32>)
// CHECK-NEXT: %[[H:.*]], %[[Y:.*]] = tfm.add_layer_norm %[[X]], %[[R]], %[[W]] dropout 1.000000e-01 stream 3 eps 1.000000e-05
// CHECK-NEXT: return %[[H]], %[[Y]]
func.func @dropout_add_norm(%x: tensor<8x2x32xf32>, %r: tensor<8x2x32xf32>,
                            %w: tensor<32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %d = tfm.dropout %x rate 1.0e-01 stream 3 : tensor<8x2x32xf32>
  %h = tfm.add %r, %d : tensor<8x2x32xf32>
  %y = tfm.layer_norm %h, %w eps 1.0e-05 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
  return %h, %y : tensor<8x2x32xf32>, tensor<8x2x32xf32>
}
