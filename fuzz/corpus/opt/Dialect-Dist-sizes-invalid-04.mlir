
// 2^61 f32 elements count fine but are 2^63 bytes.
dist.mesh @mesh ["tp" = 2]
func.func @bytes(%x: tensor<2305843009213693952xf32, #dist.layout<@mesh, tp = P>>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{'dist.all_reduce' op operand #0 has shape [2305843009213693952] of 'f32', whose size in bytes overflows int64}}
  %y = dist.all_reduce %x on @mesh["tp"] sum : tensor<2305843009213693952xf32, #dist.layout<@mesh, tp = P>> -> tensor<2305843009213693952xf32>
  return %y : tensor<2305843009213693952xf32>
}

