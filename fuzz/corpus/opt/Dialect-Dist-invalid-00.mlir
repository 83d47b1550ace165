// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of dist.mesh, #dist.layout and the collectives.

//===----------------------------------------------------------------------===//
// dist.mesh
//===----------------------------------------------------------------------===//

// expected-error @+1 {{needs at least one axis}}
dist.mesh @m []

