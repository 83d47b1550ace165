
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @more_results(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 1 and 2}}
  %0:2 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>)
  return
}

