
// The next aligned offset is past int64 although the bytes alone would fit:
// 2^63 - 60 bytes, then 4 more, which must start at a multiple of 64.
func.func @alignment(%x: tensor<2305843009213693937xf32>, %y: tensor<1xf32>) -> (tensor<2305843009213693937xf32>, tensor<1xf32>) {
  %a = tfm.silu %x : tensor<2305843009213693937xf32>
  // expected-error @+1 {{'tfm.silu' op result #0 (4 bytes) cannot be placed: the arena of @alignment would exceed int64 bytes}}
  %b = tfm.silu %y : tensor<1xf32>
  return %a, %b : tensor<2305843009213693937xf32>, tensor<1xf32>
}
