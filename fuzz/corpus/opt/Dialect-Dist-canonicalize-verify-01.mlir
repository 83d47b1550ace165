
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

