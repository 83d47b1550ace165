// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics

// #dist.layout names its mesh: a layout naming another mesh than the one a
// value is used on is an error naming both, at the op whose type carries it
// (each collective checks its own mesh, sp-verify the module's mesh).

// expected-error @+1 {{expected the layout's mesh (@name) before its entries: #dist.layout<@mesh, axis = S(d) | P | R, ...>}}
func.func @no_mesh(%x: tensor<4xf32, #dist.layout<tp = P>>) {
  return
}

// -----

// expected-error @+1 {{expected '>'}}
func.func @nested_mesh(%x: tensor<4xf32, #dist.layout<@outer::@mesh, tp = P>>) {
  return
}

// -----

// expected-error @+1 {{expected '>'}}
func.func @entry_without_comma(%x: tensor<4xf32, #dist.layout<@mesh tp = P>>) {
  return
}

// -----

dist.mesh @mesh ["tp" = 4]
func.func @collective_other_mesh(%x: tensor<2x8xf32, #dist.layout<@other, tp = S(0)>>) {
  // expected-error @+1 {{'dist.all_gather' op layout of operand #0 names mesh @other but is used on mesh @mesh}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@other, tp = S(0)>> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["tp" = 4]
func.func @collective_result_other_mesh(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{'dist.reduce_scatter' op layout of result #0 names mesh @other but is used on mesh @mesh}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x8xf32, #dist.layout<@other, tp = S(0)>>
  return
}

// -----

// An empty layout naming another mesh is still a layout of that mesh.
dist.mesh @mesh ["tp" = 4]
func.func @collective_empty_other_mesh(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{'dist.all_gather' op layout of result #0 names mesh @other but is used on mesh @mesh}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@other>>
  return
}

// -----

// sp-verify checks every op's types against the module's mesh.
dist.mesh @mesh ["tp" = 2]
func.func @tfm_other_mesh(%x: tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>>) -> tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>> {
  // expected-error @+1 {{'tfm.relu' op layout of operand #0 names mesh @grid but is used on mesh @mesh}}
  %0 = tfm.relu %x : tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>>
  return %0 : tensor<4x8xf32, #dist.layout<@grid, tp = S(1)>>
}

// -----

// The same for a parameter's declared layout.
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'tfm.param' op layout names mesh @grid but is used on mesh @mesh}}
tfm.param @w : tensor<8x8xf32, #dist.layout<@grid, tp = S(0)>> init normal(2.000000e-02)
func.func @param_other_mesh() {
  return
}

// -----

// The SPMD passes take one mesh, which every layout names (dist::getMesh).
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'dist.mesh' op is a second mesh, but the SPMD passes take a module with at most one (mesh @mesh is the first)}}
dist.mesh @grid ["tp" = 2]
