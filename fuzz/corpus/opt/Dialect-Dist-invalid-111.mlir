
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_element(%x: tensor<8x2x8xbf16>, %w: tensor<6x8xbf16>, %b: tensor<6xf32>) {
  // expected-error @+1 {{bias element type 'f32' differs from the input's 'bf16'}}
  %0 = dist.matmul_reduce_scatter %x, %w, %b on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xbf16>, tensor<6x8xbf16>, tensor<6xf32>) -> tensor<2x2x6xbf16>
  return
}

