
// One element fewer than 2^61 f32 is 2^63 - 4 bytes: accepted.
dist.mesh @mesh ["tp" = 2]
func.func @largest(%x: tensor<2305843009213693951xf32, #dist.layout<@mesh, tp = P>>) -> tensor<2305843009213693951xf32> {
  %y = dist.all_reduce %x on @mesh["tp"] sum : tensor<2305843009213693951xf32, #dist.layout<@mesh, tp = P>> -> tensor<2305843009213693951xf32>
  return %y : tensor<2305843009213693951xf32>
}

