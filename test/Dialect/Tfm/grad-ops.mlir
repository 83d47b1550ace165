// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Round trip of every backward op (tfm-autodiff) and optimizer op
// (sp-optimizer): each op is parsed, printed, parsed again and the custom form
// is checked; the second RUN line goes through the generic form.

// CHECK: tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02){{$}}
tfm.param @w : tensor<8x8xf32> init normal(0.02)
// CHECK: tfm.param @norm : tensor<8xbf16> init ones{{$}}
tfm.param @norm : tensor<8xbf16> init ones
// CHECK: tfm.param @sharded : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02){{$}}
tfm.param @sharded : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @linear_grad_input
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x48xf32>, %[[WOI:[a-z0-9_]+]]: tensor<48x16xf32>, %[[WIO:[a-z0-9_]+]]: tensor<16x48xf32>, %[[DY16:[a-z0-9_]+]]: tensor<4xf16>, %[[W16:[a-z0-9_]+]]: tensor<4x16xf16>)
func.func @linear_grad_input(%dy: tensor<8x2x48xf32>, %w_oi: tensor<48x16xf32>,
                             %w_io: tensor<16x48xf32>, %dy16: tensor<4xf16>,
                             %w16: tensor<4x16xf16>)
    -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>,
        tensor<16xf16>) {
  // The default out_in layout is not printed.
  // CHECK: %[[A:.*]] = tfm.linear_grad_input %[[DY]], %[[WOI]] : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  %0 = tfm.linear_grad_input %dy, %w_oi
      : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  // CHECK: %[[B:.*]] = tfm.linear_grad_input %[[DY]], %[[WOI]] : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  %1 = tfm.linear_grad_input %dy, %w_oi weight_layout out_in
      : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  // CHECK: %[[C:.*]] = tfm.linear_grad_input %[[DY]], %[[WIO]] weight_layout in_out : (tensor<8x2x48xf32>, tensor<16x48xf32>) -> tensor<8x2x16xf32>
  %2 = tfm.linear_grad_input %dy, %w_io weight_layout in_out
      : (tensor<8x2x48xf32>, tensor<16x48xf32>) -> tensor<8x2x16xf32>
  // A rank-1 gradient in reduced precision.
  // CHECK: %[[D:.*]] = tfm.linear_grad_input %[[DY16]], %[[W16]] : (tensor<4xf16>, tensor<4x16xf16>) -> tensor<16xf16>
  %3 = tfm.linear_grad_input %dy16, %w16
      : (tensor<4xf16>, tensor<4x16xf16>) -> tensor<16xf16>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
  return %0, %1, %2, %3
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>,
        tensor<16xf16>
}

// CHECK-LABEL: func.func @linear_grad_weight
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[DY:[a-z0-9_]+]]: tensor<8x2x48xf32>, %[[XB:[a-z0-9_]+]]: tensor<4x16xbf16>, %[[DYB:[a-z0-9_]+]]: tensor<4x8xbf16>)
func.func @linear_grad_weight(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>,
                              %xb: tensor<4x16xbf16>, %dyb: tensor<4x8xbf16>)
    -> (tensor<48x16xf32>, tensor<16x48xf32>, tensor<8x16xbf16>) {
  // [out, in] = [48, 16].
  // CHECK: %[[A:.*]] = tfm.linear_grad_weight %[[X]], %[[DY]] : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  %0 = tfm.linear_grad_weight %x, %dy
      : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  // [in, out] = [16, 48].
  // CHECK: %[[B:.*]] = tfm.linear_grad_weight %[[X]], %[[DY]] weight_layout in_out : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<16x48xf32>
  %1 = tfm.linear_grad_weight %x, %dy weight_layout in_out
      : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<16x48xf32>
  // CHECK: %[[C:.*]] = tfm.linear_grad_weight %[[XB]], %[[DYB]] : (tensor<4x16xbf16>, tensor<4x8xbf16>) -> tensor<8x16xbf16>
  %2 = tfm.linear_grad_weight %xb, %dyb weight_layout out_in
      : (tensor<4x16xbf16>, tensor<4x8xbf16>) -> tensor<8x16xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2
      : tensor<48x16xf32>, tensor<16x48xf32>, tensor<8x16xbf16>
}

// CHECK-LABEL: func.func @bias_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x48xf32>, %[[DYB:[a-z0-9_]+]]: tensor<48xbf16>)
func.func @bias_grad(%dy: tensor<8x2x48xf32>, %dyb: tensor<48xbf16>)
    -> (tensor<48xf32>, tensor<48xbf16>, tensor<48xf32>) {
  // CHECK: %[[A:.*]] = tfm.bias_grad %[[DY]] : tensor<8x2x48xf32> -> tensor<48xf32>
  %0 = tfm.bias_grad %dy : tensor<8x2x48xf32> -> tensor<48xf32>
  // CHECK: %[[B:.*]] = tfm.bias_grad %[[DYB]] : tensor<48xbf16> -> tensor<48xbf16>
  %1 = tfm.bias_grad %dyb : tensor<48xbf16> -> tensor<48xbf16>
  // A bf16 gradient's sums in f32 (a partial sum, rounded after its
  // reduction).
  // CHECK: %[[C:.*]] = tfm.bias_grad %[[DYB]] : tensor<48xbf16> -> tensor<48xf32>
  %2 = tfm.bias_grad %dyb : tensor<48xbf16> -> tensor<48xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2 : tensor<48xf32>, tensor<48xbf16>, tensor<48xf32>
}

// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[X:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[W:[a-z0-9_]+]]: tensor<16xf32>)
func.func @layer_norm_grad(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>,
                           %w: tensor<16xf32>)
    -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[DX:[a-z0-9_]+]], %[[DW:[a-z0-9_]+]], %[[DB:[a-z0-9_]+]] = tfm.layer_norm_grad %[[DY]], %[[X]], %[[W]] eps 1.000000e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
  %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>)
      -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
  // CHECK: return %[[DX]], %[[DW]], %[[DB]]
  return %dx, %dw, %db : tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @rms_norm_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[X:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[W:[a-z0-9_]+]]: tensor<16xf32>, %[[DYH:[a-z0-9_]+]]: tensor<4x8xf16>, %[[XH:[a-z0-9_]+]]: tensor<4x8xf16>, %[[WH:[a-z0-9_]+]]: tensor<8xf16>)
func.func @rms_norm_grad(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>,
                         %w: tensor<16xf32>, %dyh: tensor<4x8xf16>,
                         %xh: tensor<4x8xf16>, %wh: tensor<8xf16>)
    -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<4x8xf16>, tensor<8xf16>) {
  // CHECK: %[[DX:[a-z0-9_]+]], %[[DW:[a-z0-9_]+]] = tfm.rms_norm_grad %[[DY]], %[[X]], %[[W]] eps 9.9999999999999995E-7 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  %dx, %dw = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>)
      -> (tensor<8x2x16xf32>, tensor<16xf32>)
  // CHECK: %[[DXH:[a-z0-9_]+]], %[[DWH:[a-z0-9_]+]] = tfm.rms_norm_grad %[[DYH]], %[[XH]], %[[WH]] eps 5.000000e-01 : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8xf16>)
  %dxh, %dwh = tfm.rms_norm_grad %dyh, %xh, %wh eps 0.5
      : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf16>)
      -> (tensor<4x8xf16>, tensor<8xf16>)
  // CHECK: return %[[DX]], %[[DW]], %[[DXH]], %[[DWH]]
  return %dx, %dw, %dxh, %dwh
      : tensor<8x2x16xf32>, tensor<16xf32>, tensor<4x8xf16>, tensor<8xf16>
}

// CHECK-LABEL: func.func @gelu_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x64xf32>, %[[X:[a-z0-9_]+]]: tensor<8x2x64xf32>, %[[DYB:[a-z0-9_]+]]: tensor<8x64xbf16>, %[[XB:[a-z0-9_]+]]: tensor<8x64xbf16>)
func.func @gelu_grad(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xf32>,
                     %dyb: tensor<8x64xbf16>, %xb: tensor<8x64xbf16>)
    -> (tensor<8x2x64xf32>, tensor<8x64xbf16>) {
  // CHECK: %[[A:.*]] = tfm.gelu_grad %[[DY]], %[[X]] approximate none : tensor<8x2x64xf32>
  %0 = tfm.gelu_grad %dy, %x approximate none : tensor<8x2x64xf32>
  // CHECK: %[[B:.*]] = tfm.gelu_grad %[[DYB]], %[[XB]] approximate tanh : tensor<8x64xbf16>
  %1 = tfm.gelu_grad %dyb, %xb approximate tanh : tensor<8x64xbf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<8x2x64xf32>, tensor<8x64xbf16>
}

// CHECK-LABEL: func.func @silu_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x88xf32>, %[[X:[a-z0-9_]+]]: tensor<8x2x88xf32>)
func.func @silu_grad(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x88xf32>)
    -> tensor<8x2x88xf32> {
  // CHECK: %[[A:.*]] = tfm.silu_grad %[[DY]], %[[X]] : tensor<8x2x88xf32>
  %0 = tfm.silu_grad %dy, %x : tensor<8x2x88xf32>
  // CHECK: return %[[A]]
  return %0 : tensor<8x2x88xf32>
}

// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: tensor<f32>, %[[X:[a-z0-9_]+]]: tensor<8x2x16xbf16>)
func.func @scale(%s: tensor<f32>, %x: tensor<8x2x16xbf16>)
    -> (tensor<f32>, tensor<8x2x16xbf16>) {
  // CHECK: %[[A:.*]] = tfm.scale %[[S]] by 5.000000e-01 : tensor<f32>
  %0 = tfm.scale %s by 0.5 : tensor<f32>
  // CHECK: %[[B:.*]] = tfm.scale %[[X]] by -2.000000e+00 : tensor<8x2x16xbf16>
  %1 = tfm.scale %x by -2.0 : tensor<8x2x16xbf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<f32>, tensor<8x2x16xbf16>
}

// The seed of reverse mode and the zero gradient of an unread parameter.
// CHECK-LABEL: func.func @fill
func.func @fill() -> (tensor<f32>, tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // CHECK: %[[ONE:.*]] = tfm.fill 1.000000e+00 : tensor<f32>
  %one = tfm.fill 1.0 : tensor<f32>
  // CHECK: %[[ZERO:.*]] = tfm.fill 0.000000e+00 : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>
  %zero = tfm.fill 0.0 : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>
  // CHECK: return %[[ONE]], %[[ZERO]]
  return %one, %zero : tensor<f32>, tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>
}

// A loss-scaled seed: the constant times the step's loss scale.
// CHECK-LABEL: func.func @fill_times
func.func @fill_times() -> tensor<f32> {
  // CHECK: %loss_scale = tfm.hyperparameter loss_scale default 6.553600e+04
  %s = tfm.hyperparameter loss_scale default 65536.0
  // CHECK-NEXT: %[[SEED:.*]] = tfm.fill 1.000000e+00 times %loss_scale : tensor<f32>
  %seed = tfm.fill 1.0 times %s : tensor<f32>
  // CHECK-NEXT: return %[[SEED]]
  return %seed : tensor<f32>
}

// CHECK-LABEL: func.func @embedding_grad
// CHECK-SAME: (%[[IDS:[a-z0-9_]+]]: tensor<8x2xi64>, %[[DY:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[IDS32:[a-z0-9_]+]]: tensor<8xi32>, %[[DYH:[a-z0-9_]+]]: tensor<8x16xf16>)
func.func @embedding_grad(%ids: tensor<8x2xi64>, %dy: tensor<8x2x16xf32>,
                          %ids32: tensor<8xi32>, %dyh: tensor<8x16xf16>)
    -> (tensor<64x16xf32>, tensor<32x16xf16, #dist.layout<@mesh, tp = S(0)>>) {
  // CHECK: %[[A:.*]] = tfm.embedding_grad %[[IDS]], %[[DY]] : (tensor<8x2xi64>, tensor<8x2x16xf32>) -> tensor<64x16xf32>
  %0 = tfm.embedding_grad %ids, %dy
      : (tensor<8x2xi64>, tensor<8x2x16xf32>) -> tensor<64x16xf32>
  // Only this rank's rows of a table split over the vocabulary.
  // CHECK: %[[B:.*]] = tfm.embedding_grad %[[IDS32]], %[[DYH]] : (tensor<8xi32>, tensor<8x16xf16>) -> tensor<32x16xf16, #dist.layout<@mesh, tp = S(0)>>
  %1 = tfm.embedding_grad %ids32, %dyh
      : (tensor<8xi32>, tensor<8x16xf16>)
      -> tensor<32x16xf16, #dist.layout<@mesh, tp = S(0)>>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1
      : tensor<64x16xf32>, tensor<32x16xf16, #dist.layout<@mesh, tp = S(0)>>
}

// CHECK-LABEL: func.func @qkv_concat
// CHECK-SAME: (%[[D:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[DQ:[a-z0-9_]+]]: tensor<8x2x32xbf16>, %[[DKV:[a-z0-9_]+]]: tensor<8x2x16xbf16>)
func.func @qkv_concat(%d: tensor<8x2x16xf32>, %dq: tensor<8x2x32xbf16>,
                      %dkv: tensor<8x2x16xbf16>)
    -> (tensor<8x2x48xf32>, tensor<8x2x48xf32>, tensor<8x2x64xbf16>) {
  // CHECK: %[[A:.*]] = tfm.qkv_concat %[[D]], %[[D]], %[[D]] packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 4
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
      -> tensor<8x2x48xf32>
  // CHECK: %[[B:.*]] = tfm.qkv_concat %[[D]], %[[D]], %[[D]] packing heads heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  %1 = tfm.qkv_concat %d, %d, %d packing heads heads 4 kv_heads 4 head_dim 4
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
      -> tensor<8x2x48xf32>
  // Grouped-query: (4 + 2 * 2) * 8 = 64 fused features.
  // CHECK: %[[C:.*]] = tfm.qkv_concat %[[DQ]], %[[DKV]], %[[DKV]] packing blocks heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xbf16>, tensor<8x2x16xbf16>, tensor<8x2x16xbf16> -> tensor<8x2x64xbf16>
  %2 = tfm.qkv_concat %dq, %dkv, %dkv packing blocks heads 4 kv_heads 2
      head_dim 8 : tensor<8x2x32xbf16>, tensor<8x2x16xbf16>,
      tensor<8x2x16xbf16> -> tensor<8x2x64xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2
      : tensor<8x2x48xf32>, tensor<8x2x48xf32>, tensor<8x2x64xbf16>
}

// CHECK-LABEL: func.func @repeat_heads_grad
// CHECK-SAME: (%[[DK:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[DV:[a-z0-9_]+]]: tensor<8x4xf16>)
func.func @repeat_heads_grad(%dk: tensor<8x2x16xf32>, %dv: tensor<8x4xf16>)
    -> (tensor<8x2x8xf32>, tensor<8x4xf16>) {
  // CHECK: %[[A:.*]] = tfm.repeat_heads_grad %[[DK]] heads 2 head_dim 4 factor 2 : tensor<8x2x16xf32> -> tensor<8x2x8xf32>
  %0 = tfm.repeat_heads_grad %dk heads 2 head_dim 4 factor 2
      : tensor<8x2x16xf32> -> tensor<8x2x8xf32>
  // CHECK: %[[B:.*]] = tfm.repeat_heads_grad %[[DV]] heads 1 head_dim 4 factor 1 : tensor<8x4xf16> -> tensor<8x4xf16>
  %1 = tfm.repeat_heads_grad %dv heads 1 head_dim 4 factor 1
      : tensor<8x4xf16> -> tensor<8x4xf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<8x2x8xf32>, tensor<8x4xf16>
}

// CHECK-LABEL: func.func @attention_grad
// CHECK-SAME: (%[[DO:[a-z0-9_]+]]: tensor<8x2x32xf32>, %[[Q:[a-z0-9_]+]]: tensor<8x2x32xf32>, %[[KV4:[a-z0-9_]+]]: tensor<8x2x32xf32>, %[[KV2:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[POS:[a-z0-9_]+]]: tensor<8x2xi64>, %[[POS32:[a-z0-9_]+]]: tensor<8x2xi32>)
func.func @attention_grad(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>,
                          %kv4: tensor<8x2x32xf32>, %kv2: tensor<8x2x16xf32>,
                          %pos: tensor<8x2xi64>, %pos32: tensor<8x2xi32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>) {
  // Multi-head, no positions, not causal.
  // CHECK: %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = tfm.attention_grad %[[DO]], %[[Q]], %[[KV4]], %[[KV4]] heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>{{$}}
  %a:3 = tfm.attention_grad %do, %q, %kv4, %kv4 heads 4 kv_heads 4 head_dim 8
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>,
        tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  // Grouped-query, causal, with rotary embedding.
  // CHECK: %[[DQ:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = tfm.attention_grad %[[DO]], %[[Q]], %[[KV2]], %[[KV2]] heads 4 kv_heads 2 head_dim 8 {causal, rotary_dim = 8 : i64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  %b:3 = tfm.attention_grad %do, %q, %kv2, %kv2 heads 4 kv_heads 2
      head_dim 8 {causal, rotary_dim = 8 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>,
        tensor<8x2x16xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  // Explicit positions, partial rotary and attention dropout (the mask is
  // recomputed from the stream).
  // CHECK: %{{[a-z0-9_]+}}, %[[DK:[a-z0-9_]+]], %{{[a-z0-9_]+}} = tfm.attention_grad %[[DO]], %[[Q]], %[[KV2]], %[[KV2]] positions %[[POS]] heads 4 kv_heads 2 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 7 : i64, rotary_dim = 2 : i64, rotary_theta = 5.000000e+05 : f64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  %dq, %dk, %dv = tfm.attention_grad %do, %q, %kv2, %kv2 positions %pos
      heads 4 kv_heads 2 head_dim 8
      {causal, rotary_dim = 2 : i64, rotary_theta = 5.0e+05 : f64,
       dropout_rate = 0.1 : f64, dropout_stream = 7 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>,
        tensor<8x2x16xf32>, tensor<8x2xi64>
      -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  // i32 positions.
  // CHECK: %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[DV:[a-z0-9_]+]] = tfm.attention_grad %[[DO]], %[[Q]], %[[KV2]], %[[KV2]] positions %[[POS32]] heads 4 kv_heads 2 head_dim 8 {causal} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  %c:3 = tfm.attention_grad %do, %q, %kv2, %kv2 positions %pos32 heads 4
      kv_heads 2 head_dim 8 {causal}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>,
        tensor<8x2x16xf32>, tensor<8x2xi32>
      -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  // CHECK: return %[[DQ]], %[[DK]], %[[DV]]
  return %b#0, %dk, %c#2
      : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
}

// CHECK-LABEL: func.func @cross_entropy_grad
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<8x2x64xf32>, %[[LAB:[a-z0-9_]+]]: tensor<8x2xi64>, %[[DL:[a-z0-9_]+]]: tensor<f32>, %[[L16:[a-z0-9_]+]]: tensor<8x64xf16>, %[[LAB32:[a-z0-9_]+]]: tensor<8xi32>)
func.func @cross_entropy_grad(%logits: tensor<8x2x64xf32>,
                              %labels: tensor<8x2xi64>, %dloss: tensor<f32>,
                              %logits16: tensor<8x64xf16>,
                              %labels32: tensor<8xi32>)
    -> (tensor<8x2x64xf32>, tensor<8x64xf16>) {
  // CHECK: %[[A:.*]] = tfm.cross_entropy_grad %[[L]], %[[LAB]], %[[DL]] ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<f32>) -> tensor<8x2x64xf32>
  %0 = tfm.cross_entropy_grad %logits, %labels, %dloss ignore_index -100
      : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<f32>)
      -> tensor<8x2x64xf32>
  // CHECK: %[[B:.*]] = tfm.cross_entropy_grad %[[L16]], %[[LAB32]], %[[DL]] ignore_index 0 : (tensor<8x64xf16>, tensor<8xi32>, tensor<f32>) -> tensor<8x64xf16>
  %1 = tfm.cross_entropy_grad %logits16, %labels32, %dloss ignore_index 0
      : (tensor<8x64xf16>, tensor<8xi32>, tensor<f32>) -> tensor<8x64xf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<8x2x64xf32>, tensor<8x64xf16>
}

// CHECK-LABEL: func.func @cross_entropy_from_stats_grad
// CHECK-SAME: (%[[SE:[a-z0-9_]+]]: tensor<8x2xf32>, %[[LAB:[a-z0-9_]+]]: tensor<8x2xi64>, %[[DL:[a-z0-9_]+]]: tensor<f32>)
func.func @cross_entropy_from_stats_grad(%se: tensor<8x2xf32>,
                                         %labels: tensor<8x2xi64>,
                                         %dloss: tensor<f32>)
    -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  // CHECK: %[[DSE:[a-z0-9_]+]], %[[DZ:[a-z0-9_]+]] = tfm.cross_entropy_from_stats_grad %[[SE]], %[[LAB]], %[[DL]] ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2xf32>
  %dse, %dz = tfm.cross_entropy_from_stats_grad %se, %labels, %dloss
      ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32>
      -> tensor<8x2xf32>, tensor<8x2xf32>
  // CHECK: return %[[DSE]], %[[DZ]]
  return %dse, %dz : tensor<8x2xf32>, tensor<8x2xf32>
}

// CHECK-LABEL: func.func @logits_sumexp_grad
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<8x2x64xbf16>, %[[M:[a-z0-9_]+]]: tensor<8x2xf32>, %[[DSE:[a-z0-9_]+]]: tensor<8x2xf32>)
func.func @logits_sumexp_grad(%logits: tensor<8x2x64xbf16>,
                              %m: tensor<8x2xf32>, %dse: tensor<8x2xf32>)
    -> tensor<8x2x64xbf16> {
  // CHECK: %[[A:.*]] = tfm.logits_sumexp_grad %[[L]], %[[M]], %[[DSE]] : tensor<8x2x64xbf16>, tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x2x64xbf16>
  %0 = tfm.logits_sumexp_grad %logits, %m, %dse
      : tensor<8x2x64xbf16>, tensor<8x2xf32>, tensor<8x2xf32>
      -> tensor<8x2x64xbf16>
  // CHECK: return %[[A]]
  return %0 : tensor<8x2x64xbf16>
}

// CHECK-LABEL: func.func @label_logit_grad
// CHECK-SAME: (%[[LAB:[a-z0-9_]+]]: tensor<8x2xi64>, %[[DZ:[a-z0-9_]+]]: tensor<8x2xf32>, %[[LAB1:[a-z0-9_]+]]: tensor<i32>, %[[DZ1:[a-z0-9_]+]]: tensor<f32>)
func.func @label_logit_grad(%labels: tensor<8x2xi64>, %dz: tensor<8x2xf32>,
                            %label: tensor<i32>, %dz1: tensor<f32>)
    -> (tensor<8x2x64xf32>, tensor<32xbf16>) {
  // CHECK: %[[A:.*]] = tfm.label_logit_grad %[[LAB]], %[[DZ]] ignore_index -100 : tensor<8x2xi64>, tensor<8x2xf32> -> tensor<8x2x64xf32>
  %0 = tfm.label_logit_grad %labels, %dz ignore_index -100
      : tensor<8x2xi64>, tensor<8x2xf32> -> tensor<8x2x64xf32>
  // One token: rank-0 labels, rank-1 result.
  // CHECK: %[[B:.*]] = tfm.label_logit_grad %[[LAB1]], %[[DZ1]] ignore_index 0 : tensor<i32>, tensor<f32> -> tensor<32xbf16>
  %1 = tfm.label_logit_grad %label, %dz1 ignore_index 0
      : tensor<i32>, tensor<f32> -> tensor<32xbf16>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<8x2x64xf32>, tensor<32xbf16>
}

//===----------------------------------------------------------------------===//
// Optimizer ops
//===----------------------------------------------------------------------===//

// A split gradient's sum of squares is partial over the axis that splits it.
// CHECK-LABEL: func.func @sum_squares
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<16x32xf32>, %[[GS:[a-z0-9_]+]]: tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>, %[[GB:[a-z0-9_]+]]: tensor<8xbf16>)
func.func @sum_squares(%g: tensor<16x32xf32>,
                       %gs: tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>,
                       %gb: tensor<8xbf16>)
    -> (tensor<f32>, tensor<f32, #dist.layout<@mesh, tp = P>>, tensor<f32>) {
  // CHECK: %[[A:.*]] = tfm.sum_squares %[[G]] : tensor<16x32xf32> -> tensor<f32>
  %0 = tfm.sum_squares %g : tensor<16x32xf32> -> tensor<f32>
  // CHECK: %[[B:.*]] = tfm.sum_squares %[[GS]] : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<f32, #dist.layout<@mesh, tp = P>>
  %1 = tfm.sum_squares %gs : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>
      -> tensor<f32, #dist.layout<@mesh, tp = P>>
  // Reduced-precision gradients are summed in f32.
  // CHECK: %[[C:.*]] = tfm.sum_squares %[[GB]] : tensor<8xbf16> -> tensor<f32>
  %2 = tfm.sum_squares %gb : tensor<8xbf16> -> tensor<f32>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2
      : tensor<f32>, tensor<f32, #dist.layout<@mesh, tp = P>>, tensor<f32>
}

// Several gradients in one sum (sp-optimizer's one per layout group).
// CHECK-LABEL: func.func @sum_squares_list
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<16x32xf32>, %[[GB:[a-z0-9_]+]]: tensor<8xbf16>)
func.func @sum_squares_list(%g: tensor<16x32xf32>, %gb: tensor<8xbf16>)
    -> tensor<f32> {
  // CHECK: tfm.sum_squares %[[G]], %[[GB]], %[[G]] : tensor<16x32xf32>, tensor<8xbf16>, tensor<16x32xf32> -> tensor<f32>
  %0 = tfm.sum_squares %g, %gb, %g
      : tensor<16x32xf32>, tensor<8xbf16>, tensor<16x32xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// The hyperparameters the runtime sets per step: the result is named after
// the hyperparameter; the edges of each range are allowed (betas of 0,
// weight decay and clipping off).
// CHECK-LABEL: func.func @hyperparameters
func.func @hyperparameters() -> (f64, f64, f64, f64, f64, f64) {
  // CHECK: %lr = tfm.hyperparameter lr default 1.000000e-03{{$}}
  %0 = tfm.hyperparameter lr default 1.0e-03
  // 0.999 has no exact six-digit form and prints in full.
  // CHECK-NEXT: %beta1 = tfm.hyperparameter beta1 default 0.000000e+00{{$}}
  %1 = tfm.hyperparameter beta1 default 0.0
  // CHECK-NEXT: %beta2 = tfm.hyperparameter beta2 default 0.99899999999999999{{$}}
  %2 = tfm.hyperparameter beta2 default 0.999
  // CHECK-NEXT: %eps = tfm.hyperparameter eps default 1.000000e-08{{$}}
  %3 = tfm.hyperparameter eps default 1.0e-08
  // CHECK-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 0.000000e+00{{$}}
  %4 = tfm.hyperparameter weight_decay default 0.0
  // CHECK-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 0.000000e+00{{$}}
  %5 = tfm.hyperparameter grad_clip default 0.0
  // CHECK-NEXT: return %lr, %beta1, %beta2, %eps, %weight_decay, %grad_clip : f64, f64, f64, f64, f64, f64
  return %0, %1, %2, %3, %4, %5 : f64, f64, f64, f64, f64, f64
}

// CHECK-LABEL: func.func @clip_scale
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: tensor<f32>)
func.func @clip_scale(%sumsq: tensor<f32>)
    -> (tensor<f32>, tensor<f32>) {
  // CHECK: %grad_clip = tfm.hyperparameter grad_clip default 1.000000e+00
  %clip = tfm.hyperparameter grad_clip default 1.0
  // CHECK-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[S]] max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
      : tensor<f32> -> tensor<f32>, tensor<f32>
  // CHECK: return %[[SCALE]], %[[NORM]]
  return %scale, %norm : tensor<f32>, tensor<f32>
}

// A loss-scaled backward's clip scale divides the loss scale out.
// CHECK-LABEL: func.func @clip_scale_loss_scale
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: tensor<f32>)
func.func @clip_scale_loss_scale(%sumsq: tensor<f32>)
    -> (tensor<f32>, tensor<f32>) {
  %clip = tfm.hyperparameter grad_clip default 1.0
  // CHECK: %loss_scale = tfm.hyperparameter loss_scale default 1.024000e+03
  %ls = tfm.hyperparameter loss_scale default 1024.0
  // CHECK-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[S]] max_norm %grad_clip loss_scale %loss_scale : tensor<f32> -> tensor<f32>, tensor<f32>
  %scale, %norm = tfm.clip_scale %sumsq max_norm %clip loss_scale %ls
      : tensor<f32> -> tensor<f32>, tensor<f32>
  // CHECK: return %[[SCALE]], %[[NORM]]
  return %scale, %norm : tensor<f32>, tensor<f32>
}

// The updates name parameters that the function reads with the gradient's
// type: the whole parameter or, once partitioned, this rank's shard.
// CHECK-LABEL: func.func @sgd_update
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<8x8xf32>, %[[GN:[a-z0-9_]+]]: tensor<8xbf16>, %[[GS:[a-z0-9_]+]]: tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>, %[[S:[a-z0-9_]+]]: tensor<f32>)
func.func @sgd_update(%g: tensor<8x8xf32>, %gn: tensor<8xbf16>,
                      %gs: tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>,
                      %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %n = tfm.get_param @norm : tensor<8xbf16>
  %ws = tfm.get_param @sharded : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  %lr = tfm.hyperparameter lr default 0.1
  %wd = tfm.hyperparameter weight_decay default 0.01
  // CHECK: tfm.sgd_update @w, %[[G]] scale %[[S]] lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %wd
      : tensor<8x8xf32>, tensor<f32>
  // CHECK: tfm.sgd_update @norm, %[[GN]] scale %[[S]] lr %lr weight_decay %weight_decay : tensor<8xbf16>, tensor<f32>
  tfm.sgd_update @norm, %gn scale %s lr %lr weight_decay %wd
      : tensor<8xbf16>, tensor<f32>
  // CHECK: tfm.sgd_update @sharded, %[[GS]] scale %[[S]] lr %lr weight_decay %weight_decay : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  tfm.sgd_update @sharded, %gs scale %s lr %lr weight_decay %wd
      : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  return
}

// CHECK-LABEL: func.func @adamw_update
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<8x8xf32>, %[[GS:[a-z0-9_]+]]: tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>, %[[S:[a-z0-9_]+]]: tensor<f32>)
func.func @adamw_update(%g: tensor<8x8xf32>,
                        %gs: tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>,
                        %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %ws = tfm.get_param @sharded : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  %lr = tfm.hyperparameter lr default 1.0e-03
  %b1 = tfm.hyperparameter beta1 default 0.9
  %b2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %wd = tfm.hyperparameter weight_decay default 1.0e-02
  // CHECK: tfm.adamw_update @w, %[[G]] scale %[[S]] lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.adamw_update @w, %g scale %s lr %lr betas %b1, %b2 eps %eps
      weight_decay %wd : tensor<8x8xf32>, tensor<f32>
  // CHECK: tfm.adamw_update @sharded, %[[GS]] scale %[[S]] lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  tfm.adamw_update @sharded, %gs scale %s lr %lr betas %b1, %b2 eps %eps
      weight_decay %wd : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  return
}

// With the forward's global label count.
// CHECK-LABEL: func.func @cross_entropy_grads_count
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<8x2x64xf32>, %[[LAB:[a-z0-9_]+]]: tensor<8x2xi64>, %[[DL:[a-z0-9_]+]]: tensor<f32>, %[[N:[a-z0-9_]+]]: tensor<f32>, %[[SE:[a-z0-9_]+]]: tensor<8x2xf32>)
func.func @cross_entropy_grads_count(%logits: tensor<8x2x64xf32>,
                                     %labels: tensor<8x2xi64>,
                                     %dloss: tensor<f32>, %n: tensor<f32>,
                                     %se: tensor<8x2xf32>)
    -> (tensor<8x2x64xf32>, tensor<8x2xf32>) {
  // CHECK: %[[A:.*]] = tfm.cross_entropy_grad %[[L]], %[[LAB]], %[[DL]] count %[[N]] ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<f32>, tensor<f32>) -> tensor<8x2x64xf32>
  %0 = tfm.cross_entropy_grad %logits, %labels, %dloss count %n
      ignore_index -100
      : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<f32>, tensor<f32>)
      -> tensor<8x2x64xf32>
  // CHECK: %[[DSE:[a-z0-9_]+]], %{{.*}} = tfm.cross_entropy_from_stats_grad %[[SE]], %[[LAB]], %[[DL]] count %[[N]] ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2xf32>
  %dse, %dz = tfm.cross_entropy_from_stats_grad %se, %labels, %dloss count %n
      ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32>,
      tensor<f32> -> tensor<8x2xf32>, tensor<8x2xf32>
  // CHECK: return %[[A]], %[[DSE]]
  return %0, %dse : tensor<8x2x64xf32>, tensor<8x2xf32>
}

// Mixed precision: each tensor of a linear gradient has its own element type
// (read exactly, summed in f32, the result rounded once).
// CHECK-LABEL: func.func @linear_grads_mixed_precision
func.func @linear_grads_mixed_precision(%dy: tensor<8x2x48xbf16>, %w: tensor<48x16xbf16>,
                                        %x: tensor<8x2x16xbf16>, %dyf: tensor<8x2x48xf32>) {
  // CHECK: tfm.linear_grad_input %{{.*}}, %{{.*}} : (tensor<8x2x48xbf16>, tensor<48x16xbf16>) -> tensor<8x2x16xf32>
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x48xbf16>, tensor<48x16xbf16>) -> tensor<8x2x16xf32>
  // CHECK: tfm.linear_grad_input %{{.*}}, %{{.*}} : (tensor<8x2x48xf32>, tensor<48x16xbf16>) -> tensor<8x2x16xbf16>
  %1 = tfm.linear_grad_input %dyf, %w : (tensor<8x2x48xf32>, tensor<48x16xbf16>) -> tensor<8x2x16xbf16>
  // CHECK: tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<8x2x16xbf16>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  %2 = tfm.linear_grad_weight %x, %dyf : (tensor<8x2x16xbf16>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  // CHECK: tfm.linear_grad_weight %{{.*}}, %{{.*}} : (tensor<8x2x16xbf16>, tensor<8x2x48xbf16>) -> tensor<48x16xbf16>
  %3 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xbf16>, tensor<8x2x48xbf16>) -> tensor<48x16xbf16>
  return
}
