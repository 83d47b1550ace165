
// A result whose element count overflows while the operand's fits (a linear
// widening the last dimension from 1 to 4 features: 2^61 x 4 elements).
func.func @result(%x: tensor<2305843009213693952x1xf16>, %w: tensor<4x1xf16>) -> tensor<2305843009213693952x4xf16> {
  // expected-error @+1 {{'tfm.linear' op result #0 has shape [2305843009213693952, 4], whose element count overflows int64}}
  %y = tfm.linear %x, %w : (tensor<2305843009213693952x1xf16>, tensor<4x1xf16>) -> tensor<2305843009213693952x4xf16>
  return %y : tensor<2305843009213693952x4xf16>
}

