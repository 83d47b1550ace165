// RUN: sp-opt %s --sp-report="memory=true" -verify-diagnostics -o /dev/null

// The activation memory report sums in checked int64: each SiLU keeps its
// input for the backward, and two inputs of 2^62 bytes make 2^63.
func.func @forward(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> attributes {tfm.forward} {
  %a = tfm.silu %x : tensor<1152921504606846976xf32>
  %b = tfm.silu %a : tensor<1152921504606846976xf32>
  // expected-error @+1 {{'tfm.silu' op the activation memory report overflows int64 bytes at this op}}
  %c = tfm.silu %b : tensor<1152921504606846976xf32>
  return %c : tensor<1152921504606846976xf32>
}
