// RUN: sp-opt %s -split-input-file --sp-verify -o /dev/null
// RUN: sp-opt %s -split-input-file -canonicalize | sp-opt -split-input-file --sp-verify | FileCheck %s

// Whole programs (every result whole, every op's layouts consistent) that
// verify before and after canonicalization: the rewrites of
// canonicalize.mlir keep sp-verify's layout algebra satisfied.

// A row-parallel GEMM's partial output all-reduced and then sliced to the
// sequence shard becomes the reduce-scatter of sequence parallelism.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
// CHECK-LABEL: func.func @all_reduce_then_slice
// CHECK: %[[P:.*]] = tfm.linear
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter %[[P]] on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[Y:.*]] = tfm.add %{{.*}}, %[[R]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[Y]] on @mesh["tp"] dim 0
// CHECK-NEXT: return %[[G]]
func.func @all_reduce_then_slice(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32> {
  %w = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.all_reduce %p on @mesh["tp"] sum : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xf32>
  %s = dist.local_slice %r on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.add %x, %s : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %out = dist.all_gather %y on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  return %out : tensor<4x1x8xf32>
}

// -----

// A reduce-scatter whose shard is only gathered again is an all-reduce.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
// CHECK-LABEL: func.func @reduce_scatter_then_gather
// CHECK: %[[P:.*]] = tfm.linear
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce %[[P]] on @mesh["tp"] sum : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_scatter_then_gather(%a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32> {
  %w = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %g = dist.all_gather %r on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  return %g : tensor<4x1x8xf32>
}

// -----

// Gather-then-slice and slice-then-gather round trips disappear.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @round_trips
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[Y:.*]] = tfm.add %[[X]], %[[X]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[Y]] on @mesh["tp"] dim 0
// CHECK-NEXT: return %[[G]]
func.func @round_trips(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %s = dist.local_slice %g on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.add %s, %s : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %h = dist.all_gather %y on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %t = dist.local_slice %h on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %u = dist.all_gather %t on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  return %u : tensor<4x1x8xf32>
}

// -----

// Sequence shards to feature shards through R: one all_to_all.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @reshard
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[A:.*]] = dist.all_to_all %[[X]] on @mesh["tp"] split 2 concat 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[E:.*]] = tfm.silu %[[A]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[E]] on @mesh["tp"] dim 2
// CHECK-NEXT: return %[[G]]
func.func @reshard(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  %g = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %s = dist.local_slice %g on @mesh["tp"] dim 2 : tensor<4x1x8xf32> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %e = tfm.silu %s : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %o = dist.all_gather %e on @mesh["tp"] dim 2 : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32>
  return %o : tensor<4x1x8xf32>
}

// -----

// A sliced value exchanged to another split is sliced there directly; an
// exchange followed by a gather is one gather.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @exchanges
// CHECK-SAME: (%[[X:.*]]: tensor<4x1x8xf32>, %[[Z:.*]]: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[S:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 2 : tensor<4x1x8xf32> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[E:.*]] = tfm.silu %[[S]]
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[E]] on @mesh["tp"] dim 2
// CHECK-NEXT: %[[H:.*]] = dist.all_gather %[[Z]] on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
// CHECK-NEXT: return %[[G]], %[[H]]
func.func @exchanges(%x: tensor<4x1x8xf32>, %z: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<4x1x8xf32>, tensor<4x1x8xf32>) {
  %s = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %a = dist.all_to_all %s on @mesh["tp"] split 2 concat 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %e = tfm.silu %a : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %o = dist.all_gather %e on @mesh["tp"] dim 2 : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32>
  %b = dist.all_to_all %z on @mesh["tp"] split 2 concat 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
  %h = dist.all_gather %b on @mesh["tp"] dim 2 : tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<4x1x8xf32>
  return %o, %h : tensor<4x1x8xf32>, tensor<4x1x8xf32>
}
