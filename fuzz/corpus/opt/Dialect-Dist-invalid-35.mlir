
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'bf16'}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x8xbf16>
  return
}

