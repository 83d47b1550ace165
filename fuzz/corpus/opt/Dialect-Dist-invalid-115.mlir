
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_element(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'bf16'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xbf16>
  return
}

