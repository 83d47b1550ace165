// RUN: sp-opt %s -split-input-file -sp-plan-buffers -verify-diagnostics | FileCheck %s

// sp-plan-buffers computes offsets and the arena size in checked int64: a
// plan that needs more than 2^63 - 1 bytes is an error at the value that
// finds no offset, never a wrapped (overlapping) offset.

// Three values of 2^61 bytes live together fit: offsets 0, 2^61, 2^62.
// CHECK-LABEL: func.func @fits
// CHECK-SAME: dist.arena_bytes = 6917529027641081856 : i64, dist.arena_max_live = 6917529027641081856 : i64
func.func @fits(%x: tensor<576460752303423488xf32>) -> tensor<576460752303423488xf32> {
  // CHECK: tfm.silu {{.*}}dist.arena_offsets = array<i64: 0>
  %a = tfm.silu %x : tensor<576460752303423488xf32>
  // CHECK: tfm.silu {{.*}}dist.arena_offsets = array<i64: 2305843009213693952>
  %b = tfm.silu %x : tensor<576460752303423488xf32>
  // CHECK: tfm.add {{.*}}dist.arena_offsets = array<i64: 4611686018427387904>
  %c = tfm.add %a, %b : tensor<576460752303423488xf32>
  return %c : tensor<576460752303423488xf32>
}

