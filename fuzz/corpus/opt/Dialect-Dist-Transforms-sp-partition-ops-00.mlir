// RUN: sp-opt %s -split-input-file -sp-partition="tp=2" | FileCheck %s --check-prefix=TP
// RUN: sp-opt %s -split-input-file -sp-partition="tp=2 sequence-parallel=true" | FileCheck %s --check-prefix=SP
// RUN: sp-opt %s -split-input-file -sp-partition="tp=4" | FileCheck %s --check-prefix=TP4

// sp-partition's rewrite of the embedding, qkv_split and attention ops
// (their PartitionOpInterface models), on hand-written single-device IR.

// Token embedding: the table is vocab-parallel (S(0)) and its lookup with
// every token id is partial, all-reduced (TP) or reduce-scattered along the
// sequence (SP). Position embedding: the table stays whole and is looked up
// with this rank's positions (all of them under TP, the rank's sequence
// block under SP).
// TP-LABEL: func.func @embeddings
// TP-SAME: (%[[IDS:[a-z0-9]+]]: tensor<4x2xi64>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[WTE:[0-9]+]] = tfm.get_param @wte : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[TOK:[0-9]+]] = tfm.embedding %[[IDS]], %[[WTE]] : (tensor<4x2xi64>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
// TP-NEXT: %[[TOKR:[0-9]+]] = dist.all_reduce %[[TOK]] on @mesh["tp"] sum : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x8xf32>
// TP-NEXT: %[[POS:[0-9]+]] = tfm.position_ids : tensor<4x2xi64>
// TP-NEXT: %[[WPE:[0-9]+]] = tfm.get_param @wpe : tensor<4x8xf32>
// TP-NEXT: %[[PE:[0-9]+]] = tfm.embedding %[[POS]], %[[WPE]] : (tensor<4x2xi64>, tensor<4x8xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[H:[0-9]+]] = tfm.add %[[TOKR]], %[[PE]] : tensor<4x2x8xf32>
// TP-NEXT: return %[[H]] : tensor<4x2x8xf32>
// SP-LABEL: func.func @embeddings
// SP-SAME: (%[[IDS:[a-z0-9]+]]: tensor<4x2xi64>) -> tensor<4x2x8xf32>
// SP-NEXT: %[[WTE:[0-9]+]] = tfm.get_param @wte : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[TOK:[0-9]+]] = tfm.embedding %[[IDS]], %[[WTE]] : (tensor<4x2xi64>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
// SP-NEXT: %[[TOKS:[0-9]+]] = dist.reduce_scatter %[[TOK]] on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[POS:[0-9]+]] = tfm.position_ids : tensor<2x2xi64, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[WPE:[0-9]+]] = tfm.get_param @wpe : tensor<4x8xf32>
// SP-NEXT: %[[PE:[0-9]+]] = tfm.embedding %[[POS]], %[[WPE]] : (tensor<2x2xi64, #dist.layout<@mesh, tp = S(0)>>, tensor<4x8xf32>) -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[H:[0-9]+]] = tfm.add %[[TOKS]], %[[PE]] : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[HG:[0-9]+]] = dist.all_gather %[[H]] on @mesh["tp"] dim 0 : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x2x8xf32>
// SP-NEXT: return %[[HG]] : tensor<4x2x8xf32>
// TP4-LABEL: func.func @embeddings
// TP4-NEXT: tfm.get_param @wte : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @wpe : tensor<4x8xf32> init normal(2.000000e-02)
func.func @embeddings(%ids: tensor<4x2xi64>) -> tensor<4x2x8xf32> {
  %wte = tfm.get_param @wte : tensor<16x8xf32>
  %tok = tfm.embedding %ids, %wte : (tensor<4x2xi64>, tensor<16x8xf32>) -> tensor<4x2x8xf32>
  %wpe = tfm.get_param @wpe : tensor<4x8xf32>
  %pos = tfm.position_ids : tensor<4x2xi64>
  %pe = tfm.embedding %pos, %wpe : (tensor<4x2xi64>, tensor<4x8xf32>) -> tensor<4x2x8xf32>
  %h = tfm.add %tok, %pe : tensor<4x2x8xf32>
  return %h : tensor<4x2x8xf32>
}

