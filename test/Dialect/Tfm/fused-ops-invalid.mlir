// RUN: sp-opt %s -split-input-file -verify-diagnostics

// tfm.dropout_add rejects what tfm.dropout rejects, and a rank the runtime's
// dropout does not take.

func.func @rate(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.dropout_add' op rate must be in [0, 1), got 1}}
  %y = tfm.dropout_add %x, %r rate 1.0 stream 0 : tensor<8x16xf32>
  return
}

// -----

func.func @rank(%x: tensor<2x2x2x2xf32>, %r: tensor<2x2x2x2xf32>) {
  // expected-error @+1 {{'tfm.dropout_add' op has rank 4; the runtime's dropout takes rank <= 3}}
  %y = tfm.dropout_add %x, %r rate 0.1 stream 0 : tensor<2x2x2x2xf32>
  return
}

// -----

func.func @stream(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.dropout_add' op attribute 'stream' failed to satisfy constraint}}
  %y = tfm.dropout_add %x, %r rate 0.1 stream -1 : tensor<8x16xf32>
  return
}
