
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_dim_changes(%x: tensor<8x3x8xf32>) {
  // expected-error @+1 {{result shape must be [32, 3, 2] for axis 'tp' of size 4, got 'tensor<32x1x2xf32>'}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 2 concat 0 : tensor<8x3x8xf32> -> tensor<32x1x2xf32>
  return
}

