
// The gathered input of a fused all_gather_matmul is never a value, but its
// size is checked all the same: 2^61 x 1 x 2 f16 is 2^63 bytes, while the
// shard and the result (one output feature) fit.
dist.mesh @mesh ["tp" = 4]
func.func @gathered_input(%x: tensor<576460752303423488x1x2xf16>, %w: tensor<1x2xf16>) -> tensor<2305843009213693952x1x1xf16> {
  // expected-error @+1 {{'dist.all_gather_matmul' op the gathered input has shape [2305843009213693952, 1, 2] of 'f16', whose size in bytes overflows int64}}
  %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<576460752303423488x1x2xf16>, tensor<1x2xf16>) -> tensor<2305843009213693952x1x1xf16>
  return %y : tensor<2305843009213693952x1x1xf16>
}

