
func.func @mesh_missing(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'mesh' does not name a dist.mesh}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return
}

