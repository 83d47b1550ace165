// RUN: sp-opt %s -split-input-file -verify-diagnostics

// The constraints of the zigzag split S(d, zigzag).

// expected-error @+1 {{axes 'cp' and 'cq' both split dimension 0 in zigzag (one zigzag split per dimension)}}
func.func @two_zigzags(%x: tensor<4xf32, #dist.layout<@mesh, cp = S(0, zigzag), cq = S(0, zigzag)>>) {
  return
}

// -----

// expected-error @+1 {{expected 'blocks'}}
func.func @misspelt(%x: tensor<4xf32, #dist.layout<@mesh, cp = S(0, zigzg)>>) {
  return
}

// -----

// A zigzag part is two chunks: its local size is even.
dist.mesh @mesh ["cp" = 2]
func.func @odd_part(%x: tensor<3x2xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>) {
  // expected-error @+1 {{layout of operand #0 cuts dimension 0 of local size 3 into 2 blocks on axis 'cp'}}
  %0 = dist.all_gather %x on @mesh["cp"] dim 0 : tensor<3x2xf32, #dist.layout<@mesh, cp = S(0, zigzag)>> -> tensor<6x2xf32>
  return
}

// -----

// The zigzag parts of cp cannot be gathered while tp still cuts them.
dist.mesh @mesh ["cp" = 2, "tp" = 2]
func.func @gather_outer_first(%x: tensor<4x2xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>>) {
  // expected-error @+1 {{moves the zigzag split of dimension 0 over 'cp' while axis 'tp' also splits it: gather 'tp' first}}
  %0 = dist.all_gather %x on @mesh["cp"] dim 0 : tensor<4x2xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>> -> tensor<8x2xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

// -----

// A zigzag result of a plain gather's input: the layouts must agree.
dist.mesh @mesh ["cp" = 2]
func.func @slice_kind(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{result must be S(0) on axis 'cp', its layout is #dist.layout<@mesh, cp = S(0, blocks = 2)>}}
  %0 = dist.local_slice %x on @mesh["cp"] dim 0 : tensor<8x2xf32> -> tensor<4x2xf32, #dist.layout<@mesh, cp = S(0, blocks = 2)>>
  return
}
