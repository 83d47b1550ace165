
// Two values of 2^62 bytes live together need 2^63 bytes.
func.func @two(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %a = tfm.silu %x : tensor<1152921504606846976xf32>
  // expected-error @+1 {{'tfm.silu' op result #0 (4611686018427387904 bytes) cannot be placed: the arena of @two would exceed int64 bytes}}
  %b = tfm.silu %x : tensor<1152921504606846976xf32>
  %c = tfm.add %a, %b : tensor<1152921504606846976xf32>
  return %c : tensor<1152921504606846976xf32>
}

