
// S(0) -> S(2) -> S(1) is no round trip.
dist.mesh @mesh ["cp" = 2]
// CHECK-LABEL: func.func @all_to_all_chain
// CHECK: %[[A:.*]] = dist.all_to_all %{{.*}} on @mesh["cp"] split 2 concat 0
// CHECK: %[[B:.*]] = dist.all_to_all %[[A]] on @mesh["cp"] split 1 concat 2
// CHECK: return %[[B]]
func.func @all_to_all_chain(%x: tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>) -> tensor<8x1x8xf32, #dist.layout<@mesh, cp = S(1)>> {
  %0 = dist.all_to_all %x on @mesh["cp"] split 2 concat 0 : tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>>
  %1 = dist.all_to_all %0 on @mesh["cp"] split 1 concat 2 : tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>> -> tensor<8x1x8xf32, #dist.layout<@mesh, cp = S(1)>>
  return %1 : tensor<8x1x8xf32, #dist.layout<@mesh, cp = S(1)>>
}

