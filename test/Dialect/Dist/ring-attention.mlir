// RUN: sp-opt %s | FileCheck %s
// RUN: sp-opt %s | sp-opt | FileCheck %s

// dist.ring_attention and its backward round-trip: this rank's zigzag part
// of a 16-token sequence over cp = 2 (8 local rows), GQA (4 heads, 2 kv
// heads of 16 features), positions for rotary and document masking.

dist.mesh @mesh ["cp" = 2, "tp" = 2] roles [context, tensor]

// CHECK-LABEL: func.func @ring
// CHECK: %[[O:.*]], %[[L:.*]] = dist.ring_attention %{{.*}}, %{{.*}}, %{{.*}} positions %{{.*}} on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal, document_causal, rotary_dim = 16 : i64}
// CHECK-SAME: -> (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
// CHECK: dist.ring_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[L]] positions %{{.*}} on @mesh["cp"] heads 4 kv_heads 2 head_dim 16
// CHECK-SAME: -> (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
func.func @ring(%q: tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %k: tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %v: tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %p: tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %dy: tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>) {
  %o, %lse = dist.ring_attention %q, %k, %v positions %p on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal, document_causal, rotary_dim = 16 : i64}
      : (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>)
      -> (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
  %dq, %dk, %dv = dist.ring_attention_grad %dy, %q, %k, %v, %o, %lse positions %p on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal, document_causal, rotary_dim = 16 : i64}
      : (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>)
      -> (tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
  return
}
