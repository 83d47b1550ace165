// RUN: sp-opt %s -split-input-file -sp-legalize-precision | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-legalize-precision="storage-attention=false" | FileCheck %s --check-prefix=WRAP
// RUN: sp-opt %s -split-input-file -sp-legalize-precision -o %t.once.mlir
// RUN: sp-opt %t.once.mlir -split-input-file -sp-legalize-precision -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// Attention and its backward (AttendsAsStored) read q, k, v and dout and
// write their results in bf16 as stored, and the head reshapes around them
// move bf16 bytes (MovesBytes): no convert in the whole layer's attention.
// storage-attention=false (WRAP) computes attention on f32 copies between
// converts; the reshapes stay bf16.

// CHECK-LABEL: func.func @heads
// CHECK-NOT: tfm.convert
// CHECK: %[[Q:.*]], %[[K:.*]], %[[V:.*]] = tfm.qkv_split %{{.*}} packing heads heads 2 kv_heads 2 head_dim 4 : tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 2 head_dim 4 {causal} : {{.*}} -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tfm.attention_grad %[[O]], %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 2 head_dim 4 {causal} : {{.*}} -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[C:.*]] = tfm.qkv_concat %[[DQ]], %[[DK]], %[[DV]] packing heads {{.*}} -> tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[R:.*]] = tfm.repeat_heads %[[K]] heads 2 head_dim 4 factor 2 : {{.*}} -> tensor<6x1x16xbf16, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: return %[[C]], %[[R]]

// WRAP-LABEL: func.func @heads
// WRAP: tfm.qkv_split {{.*}} -> tensor<6x1x8xbf16
// WRAP: tfm.convert %{{.*}} : tensor<6x1x8xbf16, {{.*}} -> tensor<6x1x8xf32
// WRAP: tfm.attention {{.*}} -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// WRAP: tfm.attention_grad {{.*}} -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
// WRAP: tfm.qkv_concat {{.*}} -> tensor<6x1x24xbf16
// WRAP: tfm.repeat_heads {{.*}} -> tensor<6x1x16xbf16
dist.mesh @mesh ["tp" = 2]
func.func @heads(%qkv: tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x16xbf16, #dist.layout<@mesh, tp = S(2)>>) {
  %q, %k, %v = tfm.qkv_split %qkv packing heads heads 2 kv_heads 2 head_dim 4 : tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  %o = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  %dq, %dk, %dv = tfm.attention_grad %o, %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  %c = tfm.qkv_concat %dq, %dk, %dv packing heads heads 2 kv_heads 2 head_dim 4 : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>>
  %r = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<6x1x16xbf16, #dist.layout<@mesh, tp = S(2)>>
  return %c, %r : tensor<6x1x24xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x16xbf16, #dist.layout<@mesh, tp = S(2)>>
}

// -----

// Context parallelism (all-gather): the key and value gradients are partial
// over cp (summed across ranks before they are rounded), so the backward is
// wrapped whole, dk and dv left in f32 for the reduction; the forward, whose
// tensors are whole, keeps its storage type. A zigzag-split sequence wraps
// both (the backward sums dk, dv over the rank's two pieces).
// CHECK-LABEL: func.func @context
// CHECK: tfm.attention {{.*}} -> tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>
// CHECK: tfm.convert %{{.*}} : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0)>>
// CHECK: tfm.attention_grad {{.*}} -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>>, tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>>
// CHECK-LABEL: func.func @zigzag
// CHECK: tfm.attention {{.*}} -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
// CHECK: tfm.attention_grad {{.*}} -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>>, tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>>
dist.mesh @mesh ["cp" = 2]
func.func @context(%q: tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, %k: tensor<8x1x8xbf16>, %v: tensor<8x1x8xbf16>) -> (tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>) {
  %o = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, tensor<8x1x8xbf16>, tensor<8x1x8xbf16> -> tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>
  %dq, %dk, %dv = tfm.attention_grad %o, %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, tensor<8x1x8xbf16>, tensor<8x1x8xbf16> -> tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>
  return %dq, %dk : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0)>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>
}
func.func @zigzag(%q: tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, %k: tensor<8x1x8xbf16>, %v: tensor<8x1x8xbf16>) -> (tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>) {
  %o = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xbf16>, tensor<8x1x8xbf16> -> tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>
  %dq, %dk, %dv = tfm.attention_grad %o, %q, %k, %v heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xbf16>, tensor<8x1x8xbf16> -> tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>
  return %dq, %dk : tensor<4x1x8xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xbf16, #dist.layout<@mesh, cp = P>>
}
