// RUN: sp-opt %s -split-input-file -verify-diagnostics

// Every count the dist verifiers and the passes after them compute fits in
// int64: the number of ranks of a mesh, the element count and the byte size
// of every tensor a collective reads or writes, and a dimension times an
// axis size. An overflow is an error at the op, never a wrapped number.

// The largest mesh whose size fits: 3037000499^2 = 9223372030926249001.
dist.mesh @mesh ["dp" = 3037000499, "tp" = 3037000499]

// -----

// One more on each axis, 3037000500^2, is past 2^63 - 1.
// expected-error @+1 {{'dist.mesh' op size (the product of its axis sizes 3037000500 * 3037000500) overflows int64}}
dist.mesh @mesh ["dp" = 3037000500, "tp" = 3037000500]

// -----

// Axis sizes that wrap to a small positive number (2^32 * 2^32 * 2 = 2^65,
// 0 mod 2^64) are an overflow too.
// expected-error @+1 {{'dist.mesh' op size (the product of its axis sizes 4294967296 * 4294967296 * 2) overflows int64}}
dist.mesh @mesh ["dp" = 4294967296, "tp" = 4294967296, "pp" = 2]

// -----

// A collective on a tensor whose element count overflows int64.
dist.mesh @mesh ["tp" = 2]
func.func @elements(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{'dist.all_reduce' op operand #0 has shape [4294967296, 4294967296], whose element count overflows int64}}
  %y = dist.all_reduce %x on @mesh["tp"] sum : tensor<4294967296x4294967296xf32> -> tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}

// -----

// 2^61 f32 elements count fine but are 2^63 bytes.
dist.mesh @mesh ["tp" = 2]
func.func @bytes(%x: tensor<2305843009213693952xf32, #dist.layout<@mesh, tp = P>>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{'dist.all_reduce' op operand #0 has shape [2305843009213693952] of 'f32', whose size in bytes overflows int64}}
  %y = dist.all_reduce %x on @mesh["tp"] sum : tensor<2305843009213693952xf32, #dist.layout<@mesh, tp = P>> -> tensor<2305843009213693952xf32>
  return %y : tensor<2305843009213693952xf32>
}

// -----

// One element fewer than 2^61 f32 is 2^63 - 4 bytes: accepted.
dist.mesh @mesh ["tp" = 2]
func.func @largest(%x: tensor<2305843009213693951xf32, #dist.layout<@mesh, tp = P>>) -> tensor<2305843009213693951xf32> {
  %y = dist.all_reduce %x on @mesh["tp"] sum : tensor<2305843009213693951xf32, #dist.layout<@mesh, tp = P>> -> tensor<2305843009213693951xf32>
  return %y : tensor<2305843009213693951xf32>
}

// -----

// The result of a gather: the shard's dimension times the axis size is past
// int64 (the expected result shape cannot even be formed).
dist.mesh @mesh ["tp" = 16]
func.func @gathered_dim(%x: tensor<1152921504606846976xf16>) -> tensor<1152921504606846976xf16> {
  // expected-error @+1 {{'dist.all_gather' op dimension 0 (1152921504606846976) times the size of axis 'tp' (16) overflows int64}}
  %y = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<1152921504606846976xf16> -> tensor<1152921504606846976xf16>
  return %y : tensor<1152921504606846976xf16>
}

// -----

// The gathered input of a fused all_gather_matmul is never a value, but its
// size is checked all the same: 2^61 x 1 x 2 f16 is 2^63 bytes, while the
// shard and the result (one output feature) fit.
dist.mesh @mesh ["tp" = 4]
func.func @gathered_input(%x: tensor<576460752303423488x1x2xf16>, %w: tensor<1x2xf16>) -> tensor<2305843009213693952x1x1xf16> {
  // expected-error @+1 {{'dist.all_gather_matmul' op the gathered input has shape [2305843009213693952, 1, 2] of 'f16', whose size in bytes overflows int64}}
  %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<576460752303423488x1x2xf16>, tensor<1x2xf16>) -> tensor<2305843009213693952x1x1xf16>
  return %y : tensor<2305843009213693952x1x1xf16>
}

// -----

// The type an all_gather_param gathers into.
dist.mesh @mesh ["dp" = 2]
tfm.param @w : tensor<8xf32> init zeros
func.func @param() {
  // expected-error @+1 {{'dist.all_gather_param' op type has shape [9223372036854775807, 2], whose element count overflows int64}}
  dist.all_gather_param @w on @mesh["dp"] : tensor<9223372036854775807x2xf32>
  return
}
