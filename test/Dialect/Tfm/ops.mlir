// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Round trip of every tfm op: each op is parsed, printed, parsed again and the
// custom form is checked; the second RUN line goes through the generic form.

// CHECK: tfm.param @transformer.wte.weight : tensor<64x16xf32> init normal(2.000000e-02){{$}}
tfm.param @"transformer.wte.weight" : tensor<64x16xf32> init normal(0.02)
// CHECK: tfm.param @transformer.ln_f.bias : tensor<16xf32> init zeros{{$}}
tfm.param @"transformer.ln_f.bias" : tensor<16xf32> init zeros
// CHECK: tfm.param @transformer.ln_f.weight : tensor<16xf32> init ones{{$}}
tfm.param @"transformer.ln_f.weight" : tensor<16xf32> init ones
// CHECK: tfm.param @lm_head.weight : tensor<64x16xf32> init normal(2.000000e-02) tie "wte"{{$}}
tfm.param @"lm_head.weight" : tensor<64x16xf32> init normal(2.000000e-02) tie "wte"
// Tie groups are compared member by member: a third member must agree too.
// CHECK: tfm.param @stage1.wte : tensor<64x16xf32> init normal(2.000000e-02) tie "wte"{{$}}
tfm.param @"stage1.wte" : tensor<64x16xf32> init normal(2.0e-02) tie "wte"
// A second group with another type is independent of the first.
// CHECK: tfm.param @a.norm : tensor<16xf32> init ones tie "norms"{{$}}
tfm.param @"a.norm" : tensor<16xf32> init ones tie "norms"
// CHECK: tfm.param @b.norm : tensor<16xf32> init ones tie "norms"{{$}}
tfm.param @"b.norm" : tensor<16xf32> init ones tie "norms"
// CHECK: tfm.param @half : tensor<8x4xf16> init normal(1.000000e+00){{$}}
tfm.param @half : tensor<8x4xf16> init normal(1.0)
// CHECK: tfm.param @brain : tensor<8xbf16> init zeros{{$}}
tfm.param @brain : tensor<8xbf16> init zeros
// CHECK: tfm.param @scalar : tensor<f32> init ones{{$}}
tfm.param @scalar : tensor<f32> init ones
// After partitioning a parameter carries its layout with the global shape.
// CHECK: tfm.param @sharded : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02){{$}}
tfm.param @sharded : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)

// CHECK-LABEL: func.func @get_param
func.func @get_param() -> (tensor<64x16xf32>, tensor<8x4xf16>, tensor<8xbf16>) {
  // CHECK: %[[W:.*]] = tfm.get_param @transformer.wte.weight : tensor<64x16xf32>
  %w = tfm.get_param @"transformer.wte.weight" : tensor<64x16xf32>
  // CHECK: %[[H:.*]] = tfm.get_param @half : tensor<8x4xf16>
  %h = tfm.get_param @half : tensor<8x4xf16>
  // CHECK: %[[B:.*]] = tfm.get_param @brain : tensor<8xbf16>
  %b = tfm.get_param @brain : tensor<8xbf16>
  // CHECK: return %[[W]], %[[H]], %[[B]]
  return %w, %h, %b : tensor<64x16xf32>, tensor<8x4xf16>, tensor<8xbf16>
}

// tfm.get_param of a sharded parameter returns this rank's shard (or,
// trivially, the whole parameter).
// CHECK-LABEL: func.func @get_param_shard
func.func @get_param_shard()
    -> (tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>,
        tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // CHECK: %[[S:.*]] = tfm.get_param @sharded : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>
  %s = tfm.get_param @sharded : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>
  // CHECK: %[[G:.*]] = tfm.get_param @sharded : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>
  %g = tfm.get_param @sharded : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>
  // CHECK: return %[[S]], %[[G]]
  return %s, %g : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>,
      tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>
}

// CHECK-LABEL: func.func @position_ids
func.func @position_ids() -> (tensor<8x2xi64>, tensor<8x2xi32>) {
  // CHECK: %[[P:.*]] = tfm.position_ids : tensor<8x2xi64>
  %p = tfm.position_ids : tensor<8x2xi64>
  // CHECK: %[[Q:.*]] = tfm.position_ids : tensor<8x2xi32>
  %q = tfm.position_ids : tensor<8x2xi32>
  // CHECK: return %[[P]], %[[Q]]
  return %p, %q : tensor<8x2xi64>, tensor<8x2xi32>
}

// CHECK-LABEL: func.func @micro_batch
func.func @micro_batch(%ids: tensor<4x8x2xi64>) -> tensor<8x2xi64> {
  // CHECK: %[[M:.*]] = tfm.micro_batch %{{.*}}[3] : tensor<4x8x2xi64> -> tensor<8x2xi64>
  %m = tfm.micro_batch %ids[3] : tensor<4x8x2xi64> -> tensor<8x2xi64>
  // CHECK: return %[[M]]
  return %m : tensor<8x2xi64>
}

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[IDS:[a-z0-9]+]]: tensor<8x2xi64>, %[[IDS32:[a-z0-9]+]]: tensor<8x2xi32>, %[[T:[a-z0-9]+]]: tensor<64x16xf32>, %[[T16:[a-z0-9]+]]: tensor<64x16xf16>)
func.func @embedding(%ids: tensor<8x2xi64>, %ids32: tensor<8x2xi32>,
                     %t: tensor<64x16xf32>, %t16: tensor<64x16xf16>)
    -> (tensor<8x2x16xf32>, tensor<8x2x16xf16>) {
  // CHECK: %[[X:.*]] = tfm.embedding %[[IDS]], %[[T]] : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<8x2x16xf32>
  %x = tfm.embedding %ids, %t
      : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<8x2x16xf32>
  // CHECK: %[[Y:.*]] = tfm.embedding %[[IDS32]], %[[T16]] : (tensor<8x2xi32>, tensor<64x16xf16>) -> tensor<8x2x16xf16>
  %y = tfm.embedding %ids32, %t16
      : (tensor<8x2xi32>, tensor<64x16xf16>) -> tensor<8x2x16xf16>
  // CHECK: return %[[X]], %[[Y]]
  return %x, %y : tensor<8x2x16xf32>, tensor<8x2x16xf16>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x16xf32>, %[[W:[a-z0-9]+]]: tensor<16xf32>, %[[B:[a-z0-9]+]]: tensor<16xf32>)
func.func @layer_norm(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>,
                      %b: tensor<16xf32>)
    -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>) {
  // CHECK: %[[Y0:.*]] = tfm.layer_norm %[[X]], %[[W]], %[[B]] eps 1.000000e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  %0 = tfm.layer_norm %x, %w, %b eps 1.0e-05
      : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> tensor<8x2x16xf32>
  // CHECK: %[[Y1:.*]] = tfm.layer_norm %[[X]], %[[W]] eps 1.000000e-05 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  %1 = tfm.layer_norm %x, %w eps 1.0e-05
      : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  // CHECK: return %[[Y0]], %[[Y1]]
  return %0, %1 : tensor<8x2x16xf32>, tensor<8x2x16xf32>
}

// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xbf16>, %[[W:[a-z0-9]+]]: tensor<8xbf16>)
func.func @layer_norm_bf16(%x: tensor<4x2x8xbf16>, %w: tensor<8xbf16>)
    -> tensor<4x2x8xbf16> {
  // CHECK: tfm.layer_norm %[[X]], %[[W]], %[[W]] eps 1.000000e-05 : (tensor<4x2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<4x2x8xbf16>
  %0 = tfm.layer_norm %x, %w, %w eps 1.0e-05
      : (tensor<4x2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>)
      -> tensor<4x2x8xbf16>
  return %0 : tensor<4x2x8xbf16>
}

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x16xf32>, %[[W:[a-z0-9]+]]: tensor<16xf32>, %[[X16:[a-z0-9]+]]: tensor<8x2x16xf16>, %[[W16:[a-z0-9]+]]: tensor<16xf16>)
func.func @rms_norm(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>,
                    %x16: tensor<8x2x16xf16>, %w16: tensor<16xf16>)
    -> (tensor<8x2x16xf32>, tensor<8x2x16xf16>) {
  // CHECK: %[[Y0:.*]] = tfm.rms_norm %[[X]], %[[W]] eps 5.000000e-01 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  %0 = tfm.rms_norm %x, %w eps 0.5
      : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  // CHECK: %[[Y1:.*]] = tfm.rms_norm %[[X16]], %[[W16]] eps 1.000000e-05 : (tensor<8x2x16xf16>, tensor<16xf16>) -> tensor<8x2x16xf16>
  %1 = tfm.rms_norm %x16, %w16 eps 1.0e-05
      : (tensor<8x2x16xf16>, tensor<16xf16>) -> tensor<8x2x16xf16>
  // CHECK: return %[[Y0]], %[[Y1]]
  return %0, %1 : tensor<8x2x16xf32>, tensor<8x2x16xf16>
}

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x16xf32>, %[[Y:[a-z0-9]+]]: tensor<8x2x16xbf16>)
func.func @dropout(%x: tensor<8x2x16xf32>, %y: tensor<8x2x16xbf16>)
    -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xbf16>) {
  // CHECK: %[[D0:.*]] = tfm.dropout %[[X]] rate 1.000000e-01 stream 3 : tensor<8x2x16xf32>
  %0 = tfm.dropout %x rate 1.0e-01 stream 3 : tensor<8x2x16xf32>
  // A rate of 0 is allowed (the identity).
  // CHECK: %[[D1:.*]] = tfm.dropout %[[X]] rate 0.000000e+00 stream 0 : tensor<8x2x16xf32>
  %1 = tfm.dropout %x rate 0.0 stream 0 : tensor<8x2x16xf32>
  // CHECK: %[[D2:.*]] = tfm.dropout %[[Y]] rate 5.000000e-01 stream 9 : tensor<8x2x16xbf16>
  %2 = tfm.dropout %y rate 0.5 stream 9 : tensor<8x2x16xbf16>
  // CHECK: return %[[D0]], %[[D1]], %[[D2]]
  return %0, %1, %2 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xbf16>
}

// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x16xf32>, %[[WOI:[a-z0-9]+]]: tensor<48x16xf32>, %[[WIO:[a-z0-9]+]]: tensor<16x48xf32>, %[[B:[a-z0-9]+]]: tensor<48xf32>)
func.func @linear(%x: tensor<8x2x16xf32>, %w_oi: tensor<48x16xf32>,
                  %w_io: tensor<16x48xf32>, %b: tensor<48xf32>) {
  // The default out_in layout is not printed.
  // CHECK: tfm.linear %[[X]], %[[WOI]] : (tensor<8x2x16xf32>, tensor<48x16xf32>) -> tensor<8x2x48xf32>
  %0 = tfm.linear %x, %w_oi
      : (tensor<8x2x16xf32>, tensor<48x16xf32>) -> tensor<8x2x48xf32>
  // CHECK: tfm.linear %[[X]], %[[WOI]], %[[B]] : (tensor<8x2x16xf32>, tensor<48x16xf32>, tensor<48xf32>) -> tensor<8x2x48xf32>
  %1 = tfm.linear %x, %w_oi, %b weight_layout out_in
      : (tensor<8x2x16xf32>, tensor<48x16xf32>, tensor<48xf32>)
      -> tensor<8x2x48xf32>
  // CHECK: tfm.linear %[[X]], %[[WIO]] weight_layout in_out : (tensor<8x2x16xf32>, tensor<16x48xf32>) -> tensor<8x2x48xf32>
  %2 = tfm.linear %x, %w_io weight_layout in_out
      : (tensor<8x2x16xf32>, tensor<16x48xf32>) -> tensor<8x2x48xf32>
  // CHECK: tfm.linear %[[X]], %[[WIO]], %[[B]] weight_layout in_out : (tensor<8x2x16xf32>, tensor<16x48xf32>, tensor<48xf32>) -> tensor<8x2x48xf32>
  %3 = tfm.linear %x, %w_io, %b weight_layout in_out
      : (tensor<8x2x16xf32>, tensor<16x48xf32>, tensor<48xf32>)
      -> tensor<8x2x48xf32>
  return
}

// A rank-1 input and reduced precision.
// CHECK-LABEL: func.func @linear_f16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<16xf16>, %[[W:[a-z0-9]+]]: tensor<4x16xf16>, %[[B:[a-z0-9]+]]: tensor<4xf16>)
func.func @linear_f16(%x: tensor<16xf16>, %w: tensor<4x16xf16>,
                      %b: tensor<4xf16>) -> tensor<4xf16> {
  // CHECK: tfm.linear %[[X]], %[[W]], %[[B]] : (tensor<16xf16>, tensor<4x16xf16>, tensor<4xf16>) -> tensor<4xf16>
  %0 = tfm.linear %x, %w, %b
      : (tensor<16xf16>, tensor<4x16xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @qkv_split
// CHECK-SAME: (%[[MHA:[a-z0-9]+]]: tensor<8x2x48xf32>, %[[GQA:[a-z0-9]+]]: tensor<8x2x64xbf16>)
func.func @qkv_split(%mha: tensor<8x2x48xf32>, %gqa: tensor<8x2x64xbf16>)
    -> (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x32xbf16>,
        tensor<8x2x16xbf16>, tensor<8x2x16xbf16>) {
  // CHECK: %[[Q0:[a-z0-9_]+]], %{{.*}}, %{{.*}} = tfm.qkv_split %[[MHA]] packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x2x48xf32> -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  %q0, %k0, %v0 = tfm.qkv_split %mha packing blocks heads 4 kv_heads 4
      head_dim 4 : tensor<8x2x48xf32>
      -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  // CHECK: %{{.*}}, %[[K1:[a-z0-9_]+]], %{{.*}} = tfm.qkv_split %[[MHA]] packing heads heads 4 kv_heads 4 head_dim 4 : tensor<8x2x48xf32> -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  %q1, %k1, %v1 = tfm.qkv_split %mha packing heads heads 4 kv_heads 4
      head_dim 4 : tensor<8x2x48xf32>
      -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  // Grouped-query: (4 + 2 * 2) * 8 = 64 fused features.
  // CHECK: %[[Q2:[a-z0-9_]+]], %[[K2:[a-z0-9_]+]], %[[V2:[a-z0-9_]+]] = tfm.qkv_split %[[GQA]] packing blocks heads 4 kv_heads 2 head_dim 8 : tensor<8x2x64xbf16> -> tensor<8x2x32xbf16>, tensor<8x2x16xbf16>, tensor<8x2x16xbf16>
  %q2, %k2, %v2 = tfm.qkv_split %gqa packing blocks heads 4 kv_heads 2
      head_dim 8 : tensor<8x2x64xbf16>
      -> tensor<8x2x32xbf16>, tensor<8x2x16xbf16>, tensor<8x2x16xbf16>
  // CHECK: return %[[Q0]], %[[K1]], %[[Q2]], %[[K2]], %[[V2]]
  return %q0, %k1, %q2, %k2, %v2
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x32xbf16>,
        tensor<8x2x16xbf16>, tensor<8x2x16xbf16>
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<8x2x32xf32>, %[[KV4:[a-z0-9]+]]: tensor<8x2x32xf32>, %[[KV2:[a-z0-9]+]]: tensor<8x2x16xf32>, %[[KV1:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[POS:[a-z0-9]+]]: tensor<8x2xi64>, %[[POS32:[a-z0-9]+]]: tensor<8x2xi32>)
func.func @attention(%q: tensor<8x2x32xf32>, %kv4: tensor<8x2x32xf32>,
                     %kv2: tensor<8x2x16xf32>, %kv1: tensor<8x2x8xf32>,
                     %pos: tensor<8x2xi64>, %pos32: tensor<8x2xi32>) {
  // Multi-head; default attributes are not printed.
  // CHECK: tfm.attention %[[Q]], %[[KV4]], %[[KV4]] heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>{{$}}
  %0 = tfm.attention %q, %kv4, %kv4 heads 4 kv_heads 4 head_dim 8
      {rotary_dim = 0, rotary_theta = 10000.0, dropout_rate = 0.0,
       dropout_stream = 0}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>
  // Grouped-query, causal.
  // CHECK: tfm.attention %[[Q]], %[[KV2]], %[[KV2]] heads 4 kv_heads 2 head_dim 8 {causal} : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
  %1 = tfm.attention %q, %kv2, %kv2 heads 4 kv_heads 2 head_dim 8 {causal}
      : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
      -> tensor<8x2x32xf32>
  // Multi-query with full rotary.
  // CHECK: tfm.attention %[[Q]], %[[KV1]], %[[KV1]] heads 4 kv_heads 1 head_dim 8 {causal, rotary_dim = 8 : i64, rotary_theta = 5.000000e+05 : f64} : tensor<8x2x32xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32> -> tensor<8x2x32xf32>
  %2 = tfm.attention %q, %kv1, %kv1 heads 4 kv_heads 1 head_dim 8
      {causal, rotary_dim = 8, rotary_theta = 5.0e+05}
      : tensor<8x2x32xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>
      -> tensor<8x2x32xf32>
  // Partial rotary with explicit positions and attention dropout.
  // CHECK: tfm.attention %[[Q]], %[[KV2]], %[[KV2]] positions %[[POS]] heads 4 kv_heads 2 head_dim 8 {dropout_rate = 1.000000e-01 : f64, dropout_stream = 7 : i64, rotary_dim = 2 : i64} : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x32xf32>
  %3 = tfm.attention %q, %kv2, %kv2 positions %pos heads 4 kv_heads 2
      head_dim 8 {rotary_dim = 2, dropout_rate = 0.1, dropout_stream = 7}
      : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>,
        tensor<8x2xi64> -> tensor<8x2x32xf32>
  // i32 positions; rotary_theta is free when rotary is off.
  // CHECK: tfm.attention %[[Q]], %[[KV4]], %[[KV4]] positions %[[POS32]] heads 4 kv_heads 4 head_dim 8 {causal, rotary_theta = 0.000000e+00 : f64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2xi32> -> tensor<8x2x32xf32>
  %4 = tfm.attention %q, %kv4, %kv4 positions %pos32 heads 4 kv_heads 4
      head_dim 8 {causal, rotary_theta = 0.0}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>,
        tensor<8x2xi32> -> tensor<8x2x32xf32>
  return
}

// CHECK-LABEL: func.func @attention_f16
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<4x1x8xf16>, %[[KV:[a-z0-9]+]]: tensor<4x1x4xf16>)
func.func @attention_f16(%q: tensor<4x1x8xf16>, %kv: tensor<4x1x4xf16>)
    -> tensor<4x1x8xf16> {
  // CHECK: %[[O:.*]] = tfm.attention %[[Q]], %[[KV]], %[[KV]] heads 2 kv_heads 1 head_dim 4 {causal} : tensor<4x1x8xf16>, tensor<4x1x4xf16>, tensor<4x1x4xf16> -> tensor<4x1x8xf16>
  %0 = tfm.attention %q, %kv, %kv heads 2 kv_heads 1 head_dim 4 {causal}
      : tensor<4x1x8xf16>, tensor<4x1x4xf16>, tensor<4x1x4xf16>
      -> tensor<4x1x8xf16>
  // CHECK: return %[[O]]
  return %0 : tensor<4x1x8xf16>
}

// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x16xbf16>, %[[Y:[a-z0-9]+]]: tensor<8x2x16xf32>)
func.func @elementwise(%x: tensor<8x2x16xbf16>, %y: tensor<8x2x16xf32>) {
  // CHECK: %[[G0:.*]] = tfm.gelu %[[X]] approximate none : tensor<8x2x16xbf16>
  %0 = tfm.gelu %x approximate none : tensor<8x2x16xbf16>
  // CHECK: %[[G1:.*]] = tfm.gelu %[[X]] approximate tanh : tensor<8x2x16xbf16>
  %1 = tfm.gelu %x approximate tanh : tensor<8x2x16xbf16>
  // CHECK: %[[S:.*]] = tfm.silu %[[G0]] : tensor<8x2x16xbf16>
  %2 = tfm.silu %0 : tensor<8x2x16xbf16>
  // CHECK: %[[M:.*]] = tfm.mul %[[G1]], %[[S]] : tensor<8x2x16xbf16>
  %3 = tfm.mul %1, %2 : tensor<8x2x16xbf16>
  // CHECK: tfm.add %[[M]], %[[X]] : tensor<8x2x16xbf16>
  %4 = tfm.add %3, %x : tensor<8x2x16xbf16>
  // CHECK: tfm.add %[[Y]], %[[Y]] : tensor<8x2x16xf32>
  %5 = tfm.add %y, %y : tensor<8x2x16xf32>
  return
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[L:[a-z0-9]+]]: tensor<8x2x64xf32>, %[[LAB:[a-z0-9]+]]: tensor<8x2xi64>, %[[L16:[a-z0-9]+]]: tensor<8x64xf16>, %[[LAB32:[a-z0-9]+]]: tensor<8xi32>)
func.func @cross_entropy(%logits: tensor<8x2x64xf32>, %labels: tensor<8x2xi64>,
                         %logits16: tensor<8x64xf16>, %labels32: tensor<8xi32>)
    -> (tensor<f32>, tensor<f32>) {
  // CHECK: %[[A:.*]] = tfm.cross_entropy %[[L]], %[[LAB]] ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>) -> tensor<f32>
  %0 = tfm.cross_entropy %logits, %labels ignore_index -100
      : (tensor<8x2x64xf32>, tensor<8x2xi64>) -> tensor<f32>
  // The loss is f32 even for f16 logits.
  // CHECK: %[[B:.*]] = tfm.cross_entropy %[[L16]], %[[LAB32]] ignore_index 0 : (tensor<8x64xf16>, tensor<8xi32>) -> tensor<f32>
  %1 = tfm.cross_entropy %logits16, %labels32 ignore_index 0
      : (tensor<8x64xf16>, tensor<8xi32>) -> tensor<f32>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x16xf32>, %[[B:[a-z0-9]+]]: tensor<16xf32>, %[[Y:[a-z0-9]+]]: tensor<16xbf16>)
func.func @bias_add(%x: tensor<8x2x16xf32>, %b: tensor<16xf32>,
                    %y: tensor<16xbf16>) -> (tensor<8x2x16xf32>, tensor<16xbf16>) {
  // CHECK: %[[A:.*]] = tfm.bias_add %[[X]], %[[B]] : tensor<8x2x16xf32>, tensor<16xf32>
  %0 = tfm.bias_add %x, %b : tensor<8x2x16xf32>, tensor<16xf32>
  // CHECK: %[[C:.*]] = tfm.bias_add %[[Y]], %[[Y]] : tensor<16xbf16>, tensor<16xbf16>
  %1 = tfm.bias_add %y, %y : tensor<16xbf16>, tensor<16xbf16>
  // CHECK: return %[[A]], %[[C]]
  return %0, %1 : tensor<8x2x16xf32>, tensor<16xbf16>
}

// CHECK-LABEL: func.func @repeat_heads
// CHECK-SAME: (%[[K:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[V:[a-z0-9]+]]: tensor<8x4xf16>)
func.func @repeat_heads(%k: tensor<8x2x8xf32>, %v: tensor<8x4xf16>)
    -> (tensor<8x2x16xf32>, tensor<8x4xf16>) {
  // CHECK: %[[K2:.*]] = tfm.repeat_heads %[[K]] heads 2 head_dim 4 factor 2 : tensor<8x2x8xf32> -> tensor<8x2x16xf32>
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2
      : tensor<8x2x8xf32> -> tensor<8x2x16xf32>
  // CHECK: %[[V1:.*]] = tfm.repeat_heads %[[V]] heads 1 head_dim 4 factor 1 : tensor<8x4xf16> -> tensor<8x4xf16>
  %1 = tfm.repeat_heads %v heads 1 head_dim 4 factor 1
      : tensor<8x4xf16> -> tensor<8x4xf16>
  // CHECK: return %[[K2]], %[[V1]]
  return %0, %1 : tensor<8x2x16xf32>, tensor<8x4xf16>
}

// The steps of the vocabulary-parallel cross-entropy; the statistics are f32
// whatever the logits' element type.
// CHECK-LABEL: func.func @vocab_parallel_cross_entropy
// CHECK-SAME: (%[[L:[a-z0-9]+]]: tensor<8x2x64xbf16>, %[[LAB:[a-z0-9]+]]: tensor<8x2xi64>)
func.func @vocab_parallel_cross_entropy(%logits: tensor<8x2x64xbf16>,
                                        %labels: tensor<8x2xi64>) -> tensor<f32> {
  // CHECK: %[[M:.*]] = tfm.logits_max %[[L]] : tensor<8x2x64xbf16> -> tensor<8x2xf32>
  %m = tfm.logits_max %logits : tensor<8x2x64xbf16> -> tensor<8x2xf32>
  // CHECK: %[[SE:.*]] = tfm.logits_sumexp %[[L]], %[[M]] : tensor<8x2x64xbf16>, tensor<8x2xf32> -> tensor<8x2xf32>
  %se = tfm.logits_sumexp %logits, %m
      : tensor<8x2x64xbf16>, tensor<8x2xf32> -> tensor<8x2xf32>
  // CHECK: %[[Z:.*]] = tfm.label_logit %[[L]], %[[LAB]] ignore_index -100 : tensor<8x2x64xbf16>, tensor<8x2xi64> -> tensor<8x2xf32>
  %z = tfm.label_logit %logits, %labels ignore_index -100
      : tensor<8x2x64xbf16>, tensor<8x2xi64> -> tensor<8x2xf32>
  // CHECK: %[[LOSS:.*]] = tfm.cross_entropy_from_stats %[[M]], %[[SE]], %[[Z]], %[[LAB]] ignore_index -1 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  %loss = tfm.cross_entropy_from_stats %m, %se, %z, %labels ignore_index -1
      : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64>
      -> tensor<f32>
  // CHECK: return %[[LOSS]]
  return %loss : tensor<f32>
}

// Rank-1 logits: one token, per-token statistics are rank 0.
// CHECK-LABEL: func.func @vocab_parallel_single_token
// CHECK-SAME: (%[[L:[a-z0-9]+]]: tensor<64xf32>, %[[LAB:[a-z0-9]+]]: tensor<i32>)
func.func @vocab_parallel_single_token(%logits: tensor<64xf32>,
                                       %label: tensor<i32>) {
  // CHECK: tfm.logits_max %[[L]] : tensor<64xf32> -> tensor<f32>
  %m = tfm.logits_max %logits : tensor<64xf32> -> tensor<f32>
  // CHECK: tfm.label_logit %[[L]], %[[LAB]] ignore_index 0 : tensor<64xf32>, tensor<i32> -> tensor<f32>
  %z = tfm.label_logit %logits, %label ignore_index 0
      : tensor<64xf32>, tensor<i32> -> tensor<f32>
  return
}

// A share of the global mean (sp-partition over dp / cp): the loss divides
// by a given count of non-ignored labels, counted by tfm.label_count.
// CHECK-LABEL: func.func @cross_entropy_count
// CHECK-SAME: (%[[L:[a-z0-9]+]]: tensor<8x2x64xf32>, %[[LAB:[a-z0-9]+]]: tensor<8x2xi64>, %[[S:[a-z0-9]+]]: tensor<8x2xf32>)
func.func @cross_entropy_count(%logits: tensor<8x2x64xf32>,
                               %labels: tensor<8x2xi64>, %s: tensor<8x2xf32>)
    -> (tensor<f32>, tensor<f32>) {
  // CHECK: %[[N:.*]] = tfm.label_count %[[LAB]] ignore_index -100 : tensor<8x2xi64> -> tensor<f32>
  %n = tfm.label_count %labels ignore_index -100 : tensor<8x2xi64> -> tensor<f32>
  // CHECK: %[[A:.*]] = tfm.cross_entropy %[[L]], %[[LAB]] count %[[N]] ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<f32>) -> tensor<f32>
  %0 = tfm.cross_entropy %logits, %labels count %n ignore_index -100
      : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<f32>) -> tensor<f32>
  // CHECK: %[[B:.*]] = tfm.cross_entropy_from_stats %[[S]], %[[S]], %[[S]], %[[LAB]] count %[[N]] ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32> -> tensor<f32>
  %1 = tfm.cross_entropy_from_stats %s, %s, %s, %labels count %n
      ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>,
      tensor<8x2xi64>, tensor<f32> -> tensor<f32>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<f32>, tensor<f32>
}

// Mixed precision: each tensor of a linear has its own element type (read
// exactly, summed in f32 onto the bias, the result rounded once).
// CHECK-LABEL: func.func @linear_mixed_precision
func.func @linear_mixed_precision(%x: tensor<8x16xbf16>, %w: tensor<48x16xbf16>,
                                  %b: tensor<48xf32>, %xf: tensor<8x16xf32>) {
  // CHECK: tfm.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x16xbf16>, tensor<48x16xbf16>, tensor<48xf32>) -> tensor<8x48xbf16>
  %0 = tfm.linear %x, %w, %b : (tensor<8x16xbf16>, tensor<48x16xbf16>, tensor<48xf32>) -> tensor<8x48xbf16>
  // CHECK: tfm.linear %{{.*}}, %{{.*}} : (tensor<8x16xf32>, tensor<48x16xbf16>) -> tensor<8x48xf32>
  %1 = tfm.linear %xf, %w : (tensor<8x16xf32>, tensor<48x16xbf16>) -> tensor<8x48xf32>
  return
}
