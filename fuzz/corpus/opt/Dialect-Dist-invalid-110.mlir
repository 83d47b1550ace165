
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_size(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>, %b: tensor<24xf32>) {
  // expected-error @+1 {{bias must have shape [6], got 'tensor<24xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w, %b on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>, tensor<24xf32>) -> tensor<2x2x6xf32>
  return
}

