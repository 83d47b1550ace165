// RUN: sp-opt %s -split-input-file -verify-diagnostics

// The constraints of dist.ring_attention: the axis is found by its role
// (context), the local part holds two zigzag chunks, shapes and layouts.

dist.mesh @mesh ["cp" = 2, "tp" = 2] roles [context, tensor]
func.func @not_context(%q: tensor<8x2x16xf32>) {
  // expected-error @+1 {{axis 'tp' of mesh @mesh must have role context (ring attention splits the sequence over the context-parallel axis), it has tensor}}
  %o, %l = dist.ring_attention %q, %q, %q on @mesh["tp"] heads 1 kv_heads 1 head_dim 16 {causal}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>) -> (tensor<8x2x16xf32>, tensor<8x2x1xf32>)
  return
}

// -----

// The axis is found by role, whatever its name.
dist.mesh @mesh ["ctx" = 4] roles [context]
func.func @odd_part(%q: tensor<3x2x16xf32>) {
  // expected-error @+1 {{this rank's part of the sequence (3 rows) must hold two equal zigzag chunks: the sequence (12 tokens) must be a multiple of 2 x ctx = 8}}
  %o, %l = dist.ring_attention %q, %q, %q on @mesh["ctx"] heads 1 kv_heads 1 head_dim 16 {causal}
      : (tensor<3x2x16xf32>, tensor<3x2x16xf32>, tensor<3x2x16xf32>) -> (tensor<3x2x16xf32>, tensor<3x2x1xf32>)
  return
}

// -----

dist.mesh @mesh ["cp" = 2] roles [context]
func.func @kv_width(%q: tensor<8x2x64xf32>, %k: tensor<8x2x64xf32>) {
  // expected-error @+1 {{k must have shape [8, 2, 32], got [8, 2, 64]}}
  %o, %l = dist.ring_attention %q, %k, %k on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal}
      : (tensor<8x2x64xf32>, tensor<8x2x64xf32>, tensor<8x2x64xf32>) -> (tensor<8x2x64xf32>, tensor<8x2x4xf32>)
  return
}

// -----

dist.mesh @mesh ["cp" = 2] roles [context]
func.func @lse_shape(%q: tensor<8x2x64xf32>, %k: tensor<8x2x32xf32>) {
  // expected-error @+1 {{lse must have shape [8, 2, 4], got [8, 2]}}
  %o, %l = dist.ring_attention %q, %k, %k on @mesh["cp"] heads 4 kv_heads 2 head_dim 16 {causal}
      : (tensor<8x2x64xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>) -> (tensor<8x2x64xf32>, tensor<8x2xf32>)
  return
}

// -----

dist.mesh @mesh ["cp" = 2] roles [context]
func.func @not_zigzag(%q: tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0)>>) {
  // expected-error @+1 {{every operand and result must be S(0, zigzag) on axis 'cp' (this rank's zigzag part), got #dist.layout<@mesh, cp = S(0)>}}
  %o, %l = dist.ring_attention %q, %q, %q on @mesh["cp"] heads 1 kv_heads 1 head_dim 16 {causal}
      : (tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0)>>) -> (tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<8x2x1xf32, #dist.layout<@mesh, cp = S(0)>>)
  return
}

// -----

dist.mesh @mesh ["cp" = 2] roles [context]
func.func @document_needs_positions(%q: tensor<8x2x16xf32>) {
  // expected-error @+1 {{document_causal needs causal and positions}}
  %o, %l = dist.ring_attention %q, %q, %q on @mesh["cp"] heads 1 kv_heads 1 head_dim 16 {causal, document_causal}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>) -> (tensor<8x2x16xf32>, tensor<8x2x1xf32>)
  return
}

// -----

dist.mesh @mesh ["cp" = 2] roles [context]
func.func @grad_dk(%q: tensor<8x2x16xf32>, %l: tensor<8x2x1xf32>, %bad: tensor<8x2x8xf32>) {
  // expected-error @+1 {{dk must have shape [8, 2, 16], got [8, 2, 8]}}
  %dq, %dk, %dv = dist.ring_attention_grad %q, %q, %q, %q, %q, %l on @mesh["cp"] heads 1 kv_heads 1 head_dim 16 {causal}
      : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x1xf32>) -> (tensor<8x2x16xf32>, tensor<8x2x8xf32>, tensor<8x2x16xf32>)
  return
}
