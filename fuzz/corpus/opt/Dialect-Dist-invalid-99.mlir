
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_element(%x: tensor<2x2x8xbf16>, %w: tensor<6x8xbf16>) {
  // expected-error @+1 {{result must have shape [8, 2, 6] and element type 'bf16', got 'tensor<8x2x6xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xbf16>, tensor<6x8xbf16>) -> tensor<8x2x6xf32>
  return
}

