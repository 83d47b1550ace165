// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of dist.all_reduce_coalesced; the round trip is
// in all-reduce-coalesced.mlir.

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_operands() {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 0 and 0}}
  dist.all_reduce_coalesced on @mesh["dp"] sum : () -> ()
  return
}

