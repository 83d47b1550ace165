
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_is_last(%x: tensor<2x2x8xf32>, %dy: tensor<2x2x6xf32>) {
  // expected-error @+1 {{dim 2 is out of range for a rank-2 tensor}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 2 chunks 1 : (tensor<2x2x8xf32>, tensor<2x2x6xf32>) -> tensor<6x8xf32>
  return
}

