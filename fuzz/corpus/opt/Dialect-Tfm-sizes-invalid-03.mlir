
// A huge operand: the op names it before its own checks run.
func.func @operand(%x: tensor<4294967296x4294967296x2xf32>) -> tensor<4294967296x4294967296x2xf32> {
  // expected-error @+1 {{'tfm.silu' op operand #0 has shape [4294967296, 4294967296, 2], whose element count overflows int64}}
  %y = tfm.silu %x : tensor<4294967296x4294967296x2xf32>
  return %y : tensor<4294967296x4294967296x2xf32>
}

