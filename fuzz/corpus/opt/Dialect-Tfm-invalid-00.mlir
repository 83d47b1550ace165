// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of the tfm ops' descriptions.

//===----------------------------------------------------------------------===//
// tfm.param
//===----------------------------------------------------------------------===//

// expected-error @+1 {{parameter shape must be static and positive, got 'tensor<?x4xf32>'}}
tfm.param @p : tensor<?x4xf32> init zeros

