
func.func @send_mesh_missing(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'mesh' does not name a dist.mesh}}
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}

