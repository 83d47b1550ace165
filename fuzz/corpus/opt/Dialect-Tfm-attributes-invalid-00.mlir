// RUN: sp-opt %s -split-input-file -verify-diagnostics
// RUN: not sp-opt %s -split-input-file --tfm-autodiff 2>&1 | FileCheck %s --check-prefix=AUTODIFF

// The attributes passes exchange are declared by their dialect (tfm:
// TfmDialect.td, dist: DistDialect.td) and checked wherever they appear:
// one case per rule.

// expected-error @+1 {{'func.func' op 'tfm.forward' must be a unit attribute}}
func.func @f() attributes {tfm.forward = 1} {
  return
}

