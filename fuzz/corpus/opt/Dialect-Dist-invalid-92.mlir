
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @in_features_in_out(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{weight has 6 input features but the input's last dimension is 8}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x8xf32>
  return
}

