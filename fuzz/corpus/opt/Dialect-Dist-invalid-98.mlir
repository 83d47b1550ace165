
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_out_features(%x: tensor<2x2x8xf32>, %w: tensor<8x6xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 6] and element type 'f32', got 'tensor<8x2x8xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x6xf32>) -> tensor<8x2x8xf32>
  return
}

