
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dy_element(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf16>) {
  // expected-error @+1 {{dy 0 must have shape [8, 2, out] (the gathered input's but for its last dimension) and element type 'f32', got 'tensor<8x2x6xf16>'}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf16>) -> tensor<6x8xf32>
  return
}

