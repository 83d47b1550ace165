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

// -----

// Two values of 2^62 bytes live together need 2^63 bytes.
func.func @two(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %a = tfm.silu %x : tensor<1152921504606846976xf32>
  // expected-error @+1 {{'tfm.silu' op result #0 (4611686018427387904 bytes) cannot be placed: the arena of @two would exceed int64 bytes}}
  %b = tfm.silu %x : tensor<1152921504606846976xf32>
  %c = tfm.add %a, %b : tensor<1152921504606846976xf32>
  return %c : tensor<1152921504606846976xf32>
}

// -----

// The next aligned offset is past int64 although the bytes alone would fit:
// 2^63 - 60 bytes, then 4 more, which must start at a multiple of 64.
func.func @alignment(%x: tensor<2305843009213693937xf32>, %y: tensor<1xf32>) -> (tensor<2305843009213693937xf32>, tensor<1xf32>) {
  %a = tfm.silu %x : tensor<2305843009213693937xf32>
  // expected-error @+1 {{'tfm.silu' op result #0 (4 bytes) cannot be placed: the arena of @alignment would exceed int64 bytes}}
  %b = tfm.silu %y : tensor<1xf32>
  return %a, %b : tensor<2305843009213693937xf32>, tensor<1xf32>
}
