
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_element(%x: tensor<2x2x8xf32>, %w: tensor<6x8xbf16>) {
  // expected-error @+1 {{weight element type 'bf16' differs from the input's 'f32'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xbf16>) -> tensor<8x2x6xf32>
  return
}

