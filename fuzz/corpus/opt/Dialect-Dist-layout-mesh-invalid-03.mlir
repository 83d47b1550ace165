
dist.mesh @mesh ["tp" = 4]
func.func @collective_other_mesh(%x: tensor<2x8xf32, #dist.layout<@other, tp = S(0)>>) {
  // expected-error @+1 {{'dist.all_gather' op layout of operand #0 names mesh @other but is used on mesh @mesh}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@other, tp = S(0)>> -> tensor<8x8xf32>
  return
}

