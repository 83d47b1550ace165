
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_dim_changes(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 8] for axis 'tp' of size 4, got 'tensor<8x2xf32>'}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x2xf32>
  return
}

