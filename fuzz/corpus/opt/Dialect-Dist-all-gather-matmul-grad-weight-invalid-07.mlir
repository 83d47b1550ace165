
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_out_in(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>, %dz: tensor<8x2x3xf32>) {
  // expected-error @+1 {{result 1 must have shape [3, 8] and element type 'f32', got 'tensor<8x3xf32>'}}
  %0:2 = dist.all_gather_matmul_grad_weight %x, %dy, %dz on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>, tensor<8x2x3xf32>) -> (tensor<6x8xf32>, tensor<8x3xf32>)
  return
}

