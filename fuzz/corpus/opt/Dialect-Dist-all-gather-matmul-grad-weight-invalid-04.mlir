
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @fewer_results(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{needs at least one dy and one result per dy, got 2 and 1}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

