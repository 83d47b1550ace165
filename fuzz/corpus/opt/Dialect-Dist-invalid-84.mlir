
func.func @recv_mesh_missing() {
  // expected-error @+1 {{'mesh' does not name a dist.mesh}}
  %0 = dist.recv on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}

