// RUN: sp-opt %s -split-input-file -verify-diagnostics

// Every count the dist verifiers and the passes after them compute fits in
// int64: the number of ranks of a mesh, the element count and the byte size
// of every tensor a collective reads or writes, and a dimension times an
// axis size. An overflow is an error at the op, never a wrapped number.

// The largest mesh whose size fits: 3037000499^2 = 9223372030926249001.
dist.mesh @mesh ["dp" = 3037000499, "tp" = 3037000499]

