
dist.mesh @mesh ["pp" = 4]
func.func @recv_layout_axis() {
  // expected-error @+1 {{layout of result #0 names axis 'tp' that mesh @mesh does not have}}
  %0 = dist.recv on @mesh["pp"] offset 1 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_gather_matmul
//===----------------------------------------------------------------------===//

