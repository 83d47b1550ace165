// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics

// #dist.layout names its mesh: a layout naming another mesh than the one a
// value is used on is an error naming both, at the op whose type carries it
// (each collective checks its own mesh, sp-verify the module's mesh).

// expected-error @+1 {{expected the layout's mesh (@name) before its entries: #dist.layout<@mesh, axis = S(d) | P | R, ...>}}
func.func @no_mesh(%x: tensor<4xf32, #dist.layout<tp = P>>) {
  return
}

