
func.func @stream_negative(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{attribute 'stream' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tfm.dropout %x rate 0.1 stream -1 : tensor<8x2x16xf32>
  return
}

