// RUN: sp-opt %s -split-input-file -sp-partition="tp=2" | FileCheck %s --check-prefix=TP
// RUN: sp-opt %s -split-input-file -sp-partition="tp=2 sequence-parallel=true" | FileCheck %s --check-prefix=SP

// sp-partition on hand-written single-device IR, with tensor parallelism
// alone (TP) and with sequence parallelism (SP). Data parallelism is in
// sp-partition-dp.mlir.

// A norm, a column-parallel then a row-parallel GEMM (Megatron's MLP).
// With TP alone the norm runs whole; the column GEMM's weight and bias are split on
// its outputs and its result on its features; the row GEMM's weight is
// split on its inputs, its bias-free result is partial and all-reduced, and
// the bias is added once after the reduction.
// TP-LABEL: func.func @norm_mlp
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
// TP-NOT: dist.
// TP: %[[N:[0-9]+]] = tfm.layer_norm %[[X]], %{{[0-9]+}}, %{{[0-9]+}} eps 1.000000e-05 : (tensor<4x2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x2x8xf32>
// TP-NEXT: %[[W1:[0-9]+]] = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
// TP-NEXT: %[[B1:[0-9]+]] = tfm.get_param @fc.bias : tensor<8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[H:[0-9]+]] = tfm.linear %[[N]], %[[W1]], %[[B1]] weight_layout in_out
// TP-SAME: -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[A:[0-9]+]] = tfm.gelu %[[H]] approximate tanh : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
// TP-NEXT: %[[W2:[0-9]+]] = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
// TP-NEXT: %[[P:[0-9]+]] = tfm.linear %[[A]], %[[W2]] weight_layout in_out : (tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
// TP-NEXT: %[[R:[0-9]+]] = dist.all_reduce %[[P]] on @mesh["tp"] sum : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x8xf32>
// TP-NEXT: %[[B2:[0-9]+]] = tfm.get_param @proj.bias : tensor<8xf32>
// TP-NEXT: %[[Y:[0-9]+]] = tfm.bias_add %[[R]], %[[B2]] : tensor<4x2x8xf32>, tensor<8xf32>
// TP-NEXT: return %[[Y]] : tensor<4x2x8xf32>
// Under sequence parallelism the whole input is sliced along the sequence, the norm runs on the
// shard, its output is all-gathered for the column GEMM, the row GEMM's
// partial output is reduce-scattered back to sequence shards (bias after),
// and the result is gathered whole to be returned.
// SP-LABEL: func.func @norm_mlp
// SP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
// SP-NEXT: %[[XS:[0-9]+]] = dist.local_slice %[[X]] on @mesh["tp"] dim 0 : tensor<4x2x8xf32> -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP: %[[N:[0-9]+]] = tfm.layer_norm %[[XS]], %{{[0-9]+}}, %{{[0-9]+}} eps 1.000000e-05 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[G:[0-9]+]] = dist.all_gather %[[N]] on @mesh["tp"] dim 0 : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x2x8xf32>
// SP: %[[H:[0-9]+]] = tfm.linear %[[G]], %{{[0-9]+}}, %{{[0-9]+}} weight_layout in_out
// SP-SAME: -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
// SP-NEXT: %[[A:[0-9]+]] = tfm.gelu %[[H]]
// SP: %[[P:[0-9]+]] = tfm.linear %[[A]], %{{[0-9]+}} weight_layout in_out
// SP-SAME: -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
// SP-NEXT: %[[RS:[0-9]+]] = dist.reduce_scatter %[[P]] on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
// SP-NEXT: %[[B2:[0-9]+]] = tfm.get_param @proj.bias : tensor<8xf32>
// SP-NEXT: %[[Y:[0-9]+]] = tfm.bias_add %[[RS]], %[[B2]] : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>
// SP-NEXT: %[[YG:[0-9]+]] = dist.all_gather %[[Y]] on @mesh["tp"] dim 0 : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x2x8xf32>
// SP-NEXT: return %[[YG]] : tensor<4x2x8xf32>
// SP-NOT: dist.all_reduce
tfm.param @ln.weight : tensor<8xf32> init ones
tfm.param @ln.bias : tensor<8xf32> init zeros
tfm.param @fc.weight : tensor<8x16xf32> init normal(2.000000e-02)
tfm.param @fc.bias : tensor<16xf32> init zeros
tfm.param @proj.weight : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @proj.bias : tensor<8xf32> init zeros
func.func @norm_mlp(%x: tensor<4x2x8xf32>) -> tensor<4x2x8xf32> {
  %lw = tfm.get_param @ln.weight : tensor<8xf32>
  %lb = tfm.get_param @ln.bias : tensor<8xf32>
  %n = tfm.layer_norm %x, %lw, %lb eps 1.000000e-05 : (tensor<4x2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x2x8xf32>
  %w1 = tfm.get_param @fc.weight : tensor<8x16xf32>
  %b1 = tfm.get_param @fc.bias : tensor<16xf32>
  %h = tfm.linear %n, %w1, %b1 weight_layout in_out : (tensor<4x2x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x2x16xf32>
  %a = tfm.gelu %h approximate tanh : tensor<4x2x16xf32>
  %w2 = tfm.get_param @proj.weight : tensor<16x8xf32>
  %b2 = tfm.get_param @proj.bias : tensor<8xf32>
  %y = tfm.linear %a, %w2, %b2 weight_layout in_out : (tensor<4x2x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x2x8xf32>
  return %y : tensor<4x2x8xf32>
}

