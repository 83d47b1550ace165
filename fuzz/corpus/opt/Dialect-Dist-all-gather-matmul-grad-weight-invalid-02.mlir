
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_do_not_divide(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{chunks (3) must be >= 1 and divide the input's gathered dimension (2)}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 3 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

