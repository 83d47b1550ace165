
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_out_features(%x: tensor<8x2x8xf32>, %w: tensor<8x6xf32>) {
  // expected-error @+1 {{result shape must be [2, 2, 6] for axis 'tp' of size 4, got 'tensor<2x2x8xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<8x2x8xf32>, tensor<8x6xf32>) -> tensor<2x2x8xf32>
  return
}

