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

