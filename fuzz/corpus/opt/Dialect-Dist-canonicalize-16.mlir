
//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

// S(0) -> S(2) -> S(0): the second exchange sends every block back.
dist.mesh @mesh ["cp" = 2]
// CHECK-LABEL: func.func @all_to_all_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>)
// CHECK-NEXT: return %[[X]]
func.func @all_to_all_round_trip(%x: tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>> {
  %0 = dist.all_to_all %x on @mesh["cp"] split 2 concat 0 : tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>>
  %1 = dist.all_to_all %0 on @mesh["cp"] split 0 concat 2 : tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>> -> tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>
  return %1 : tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>
}

