
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @send_layout_axis(%x: tensor<8x8xf32, #dist.layout<@mesh, pp = S(0)>>) {
  // expected-error @+1 {{layout of operand #0 names axis 'pp' that mesh @mesh does not have}}
  dist.send %x on @mesh["tp"] offset 1 : tensor<8x8xf32, #dist.layout<@mesh, pp = S(0)>>
  return
}

