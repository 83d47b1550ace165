// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// sprt_attention_args' document_causal (field 10) is the document mask's
// code (SPRT_DOCUMENTS_* in sprt/abi.def): 0 without document_causal; 2
// (STEP_POSITIONS) where the positions are tfm.position_ids', which the
// runtime knows to be the rows' own indices (the causal mask alone) unless
// the data packs documents; 1 (POSITIONS) for positions from anywhere else,
// whose documents the kernels must always read. Each attention is found by
// its dropout stream (11, 12, 13), the field before `causal`.
tfm.param @emb : tensor<16x16xf32> init normal(2.000000e-02)
// CHECK-LABEL: llvm.func @seqpar_step(
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x16xf32>
  %x = tfm.embedding %ids, %e : (tensor<8x2xi64>, tensor<16x16xf32>) -> tensor<8x2x16xf32>
  %p = tfm.position_ids : tensor<8x2xi64>
  // CHECK: llvm.mlir.constant(11 : i64) : i64
  // CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(2 : i32) : i32
  // CHECK: llvm.call @sprt_op_attention(
  %a = tfm.attention %x, %x, %x positions %p heads 2 kv_heads 2 head_dim 8 {causal, document_causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 11 : i64}
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x16xf32>
  // CHECK: llvm.mlir.constant(12 : i64) : i64
  // CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.call @sprt_op_attention(
  %b = tfm.attention %a, %a, %a positions %ids heads 2 kv_heads 2 head_dim 8 {causal, document_causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 12 : i64}
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x16xf32>
  // CHECK: llvm.mlir.constant(13 : i64) : i64
  // CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
  // CHECK: llvm.call @sprt_op_attention(
  %c = tfm.attention %b, %b, %b positions %p heads 2 kv_heads 2 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 13 : i64}
      : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %c, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
