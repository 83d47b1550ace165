
func.func @not_a_mesh(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{'nomesh' does not name a dist.mesh}}
  %0 = dist.all_reduce_coalesced %x on @nomesh["dp"] sum : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return
}

