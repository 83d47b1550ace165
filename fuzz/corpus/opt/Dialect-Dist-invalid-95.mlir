
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_rank(%x: tensor<2x2x8xf32>, %w: tensor<8x6xf32>, %b: tensor<1x6xf32>) {
  // expected-error @+1 {{bias must have shape [6], got 'tensor<1x6xf32>'}}
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x6xf32>, tensor<1x6xf32>) -> tensor<8x2x6xf32>
  return
}

