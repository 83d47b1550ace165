
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_in_out(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{result 0 must have shape [8, 6] and element type 'f32', got 'tensor<6x8xf32>'}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

