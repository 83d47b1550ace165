
func.func @not_a_mesh(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'not_a_mesh' does not name a dist.mesh}}
  dist.send %x on @not_a_mesh["tp"] offset 1 : tensor<2x8xf32>
  return
}

