// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics | FileCheck %s

// Context-parallel attention: the queries are this rank's zigzag part of the
// sequence, the keys, values and positions the whole sequence; the backward
// gives the keys and values partial gradients over cp.

// CHECK-LABEL: func.func @cp_attention
dist.mesh @mesh ["cp" = 2, "tp" = 1] roles [context, tensor]
func.func @cp_attention(%q: tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, %k: tensor<8x1x8xf32>, %pos: tensor<8x1xi64>) -> tensor<8x1x8xf32> {
  %o = tfm.attention %q, %k, %k positions %pos heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xf32>, tensor<8x1x8xf32>, tensor<8x1xi64> -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
  %dq, %dk, %dv = tfm.attention_grad %o, %q, %k, %k heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xf32>, tensor<8x1x8xf32> -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>>, tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>>
  %r = dist.all_reduce %dk on @mesh["cp"] sum : tensor<8x1x8xf32, #dist.layout<@mesh, cp = P>> -> tensor<8x1x8xf32>
  return %r : tensor<8x1x8xf32>
}

// -----

// Keys left split: each rank would attend to its own part only.
dist.mesh @mesh ["cp" = 2, "tp" = 1] roles [context, tensor]
func.func @cp_keys_not_gathered(%q: tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, %k: tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>) {
  // expected-error @+1 {{operand #1 is S(0, zigzag) on mesh axis 'cp': keys, values and positions of context-parallel queries must be the whole sequence; all-gather them over the context axis}}
  %o = tfm.attention %q, %k, %k heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
  return
}

// -----

// The keys' gradients are this rank's queries' contributions: declaring them
// whole would skip their reduction.
dist.mesh @mesh ["cp" = 2, "tp" = 1] roles [context, tensor]
func.func @cp_dk_not_partial(%q: tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, %k: tensor<8x1x8xf32>) -> tensor<8x1x8xf32> {
  // expected-error @+1 {{result #1 is R on mesh axis 'cp' but its operands make it P}}
  %dq, %dk, %dv = tfm.attention_grad %q, %q, %k, %k heads 2 kv_heads 2 head_dim 4 {causal} : tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xf32>, tensor<8x1x8xf32> -> tensor<4x1x8xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x1x8xf32>, tensor<8x1x8xf32>
  return %dk : tensor<8x1x8xf32>
}
