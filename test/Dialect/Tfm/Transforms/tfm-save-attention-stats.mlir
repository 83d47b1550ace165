// RUN: sp-opt %s -split-input-file --tfm-save-attention-stats | FileCheck %s
// RUN: sp-opt %s -split-input-file --tfm-save-attention-stats | sp-opt -split-input-file --tfm-save-attention-stats | FileCheck %s

// The forward gains lse [s, b, heads] f32 and keeps its discardable
// attributes; its backward reads the result and lse. bf16 attention: the
// statistics stay f32. The output parses, and a second run changes nothing.
// CHECK-LABEL: func.func @saves
// CHECK-SAME: (%[[Q:.*]]: tensor<16x2x32xbf16>, %[[K:.*]]: tensor<16x2x16xbf16>, %[[V:.*]]: tensor<16x2x16xbf16>, %[[DO:.*]]: tensor<16x2x32xbf16>)
// CHECK-NEXT: %[[O:.*]], %[[L:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] heads 4 kv_heads 2 head_dim 8 {causal, tfm.in_micro_batch = 1 : i64} : tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16> -> tensor<16x2x32xbf16>, tensor<16x2x4xf32>
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tfm.attention_grad %[[DO]], %[[Q]], %[[K]], %[[V]] saved(%[[O]], %[[L]]) heads 4 kv_heads 2 head_dim 8 {causal, tfm.in_micro_batch = 1 : i64} : tensor<16x2x32xbf16>, tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16> saved(tensor<16x2x32xbf16>, tensor<16x2x4xf32>) -> tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16>
// CHECK-NEXT: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @saves(%q: tensor<16x2x32xbf16>, %k: tensor<16x2x16xbf16>,
                 %v: tensor<16x2x16xbf16>, %do: tensor<16x2x32xbf16>)
    -> (tensor<16x2x32xbf16>, tensor<16x2x32xbf16>, tensor<16x2x16xbf16>,
        tensor<16x2x16xbf16>) {
  %o = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal, tfm.in_micro_batch = 1 : i64}
      : tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16> -> tensor<16x2x32xbf16>
  %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal, tfm.in_micro_batch = 1 : i64}
      : tensor<16x2x32xbf16>, tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16>
      -> tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16>
  return %o, %dq, %dk, %dv : tensor<16x2x32xbf16>, tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16>
}

// -----

// The backward's position ids are computed again (a second
// tfm.position_ids): the same data, so the forward is found.
// CHECK-LABEL: func.func @recomputed_positions
// CHECK: %[[O:.*]], %[[L:.*]] = tfm.attention
// CHECK: tfm.attention_grad {{.*}} positions %{{.*}} saved(%[[O]], %[[L]])
func.func @recomputed_positions(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xf32>,
                                %do: tensor<8x2x32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %p = tfm.position_ids : tensor<8x2xi64>
  %o = tfm.attention %q, %k, %k positions %p heads 4 kv_heads 4 head_dim 8 {causal, rotary_dim = 8 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2xi64> -> tensor<8x2x32xf32>
  %p2 = tfm.position_ids : tensor<8x2xi64>
  %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %k positions %p2 heads 4 kv_heads 4 head_dim 8 {causal, rotary_dim = 8 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2xi64>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  return %o, %dq : tensor<8x2x32xf32>, tensor<8x2x32xf32>
}

// -----

// Left alone: a backward whose attributes differ from the only forward of
// its q (another dropout stream), one whose keys are other data, one whose
// forward comes after it, and one with no forward at all.
// CHECK-LABEL: func.func @keeps
// CHECK-NOT: saved
// CHECK-NOT: tensor<8x2x4xf32>
// CHECK: return
func.func @keeps(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xf32>,
                 %k2: tensor<8x2x32xf32>, %do: tensor<8x2x32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>,
        tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %o = tfm.attention %q, %k, %k heads 4 kv_heads 4 head_dim 8 {dropout_rate = 1.0e-01 : f64, dropout_stream = 1 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  %a:3 = tfm.attention_grad %do, %q, %k, %k heads 4 kv_heads 4 head_dim 8 {dropout_rate = 1.0e-01 : f64, dropout_stream = 2 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  %b:3 = tfm.attention_grad %do, %q, %k2, %k2 heads 4 kv_heads 4 head_dim 8 {dropout_rate = 1.0e-01 : f64, dropout_stream = 1 : i64}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  %c:3 = tfm.attention_grad %do, %k, %q, %q heads 4 kv_heads 4 head_dim 8
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  %late = tfm.attention %k, %q, %q heads 4 kv_heads 4 head_dim 8
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  %d:3 = tfm.attention_grad %do, %do, %q, %q heads 4 kv_heads 4 head_dim 8
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  return %o, %a#0, %b#0, %c#0, %d#0 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
}

// -----

// Queries and keys converted again for the backward are the same data: the
// forward is found. An attention whose f32 result is only narrowed (it
// computes on f32 copies of bf16 tensors) is left alone: keeping its
// result would cost memory the step does not spend now.
// CHECK-LABEL: func.func @converted
// CHECK: %[[O:.*]], %[[L:.*]] = tfm.attention
// CHECK: tfm.attention_grad {{.*}} saved(%[[O]], %[[L]])
// CHECK: %[[N:.*]] = tfm.attention {{.*}} -> tensor<8x2x32xf32>{{$}}
// CHECK: tfm.convert %[[N]]
// CHECK-NOT: saved
func.func @converted(%q: tensor<8x2x32xbf16>, %do: tensor<8x2x32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xbf16>, tensor<8x2x32xf32>) {
  %q1 = tfm.convert %q : tensor<8x2x32xbf16> -> tensor<8x2x32xf32>
  %o = tfm.attention %q1, %q1, %q1 heads 4 kv_heads 4 head_dim 8 {causal}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  %q2 = tfm.convert %q {tfm.recomputed} : tensor<8x2x32xbf16> -> tensor<8x2x32xf32>
  %a:3 = tfm.attention_grad %do, %q2, %q2, %q2 heads 4 kv_heads 4 head_dim 8 {causal}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  %n = tfm.attention %do, %q1, %q1 heads 4 kv_heads 4 head_dim 8
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  %nb = tfm.convert %n : tensor<8x2x32xf32> -> tensor<8x2x32xbf16>
  %b:3 = tfm.attention_grad %do, %do, %q1, %q1 heads 4 kv_heads 4 head_dim 8
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  return %o, %a#0, %nb, %b#0 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xbf16>, tensor<8x2x32xf32>
}

// -----

// Of two forwards of the same data (the forward and its recomputed copy,
// sp-recompute), the backward reads the last one: the first keeps no
// statistics.
// CHECK-LABEL: func.func @recomputed
// CHECK: %[[F:.*]] = tfm.attention {{.*}} -> tensor<8x2x32xf32>{{$}}
// CHECK: %[[O:.*]], %[[L:.*]] = tfm.attention {{.*}}tfm.recomputed
// CHECK: tfm.attention_grad {{.*}} saved(%[[O]], %[[L]])
func.func @recomputed(%q: tensor<8x2x32xf32>, %do: tensor<8x2x32xf32>)
    -> (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>) {
  %f = tfm.attention %q, %q, %q heads 4 kv_heads 4 head_dim 8 {causal}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  %r = tfm.attention %q, %q, %q heads 4 kv_heads 4 head_dim 8 {causal, tfm.recomputed}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  %a:3 = tfm.attention_grad %do, %q, %q, %q heads 4 kv_heads 4 head_dim 8 {causal}
      : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
      -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  return %f, %r, %a#0 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
}
