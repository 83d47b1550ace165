
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @blocks_not_dividing(%x: tensor<2x8xf32>, %w: tensor<8x8xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>) {
  // expected-error @+1 {{layout of operand #1 cuts dimension 1 of local size 8 into 3 blocks on axis 'tp'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>) -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_gather
//===----------------------------------------------------------------------===//

