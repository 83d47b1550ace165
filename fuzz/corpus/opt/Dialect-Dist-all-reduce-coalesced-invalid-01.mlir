
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @fewer_results(%x: tensor<8x2xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 2 and 1}}
  %0 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<4xf32>) -> tensor<8x2xf32>
  return
}

