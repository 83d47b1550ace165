
// The result is gathered along dim: not the input's local size.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_gathered(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 6] and element type 'f32', got 'tensor<2x2x6xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

