// RUN: sp-opt %s -split-input-file -verify-diagnostics

// Every tensor type a tfm op verifies has an element count and a byte size
// that fit in int64, and so does every product of its attributes it checks a
// shape against (heads * head_dim, ...). An overflow is an error at the op.

// A parameter of 2^33 * 2^33 elements.
// expected-error @+1 {{'tfm.param' op type has shape [8589934592, 8589934592], whose element count overflows int64}}
tfm.param @w : tensor<8589934592x8589934592xf32> init zeros

