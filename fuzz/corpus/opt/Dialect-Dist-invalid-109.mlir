
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_element(%x: tensor<8x2x8xf16>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{weight element type 'f32' differs from the input's 'f16'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf16>, tensor<6x8xf32>) -> tensor<2x2x6xf16>
  return
}

