
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_dy(%x: tensor<2x2x8xf32>) {
  // expected-error @+1 {{needs at least one dy and one result per dy, got 0 and 0}}
  dist.all_gather_matmul_grad_weight %x, on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>) -> ()
  return
}

